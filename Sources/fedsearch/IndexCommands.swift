#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// `get`, `delete`, `settings`, `delete-by`, `create-index` and `delete-index`: one request
/// each, answered with a line of text (or documents and settings as JSON); errors go to
/// stderr with their code.
enum IndexCommands {
    static let settingsUsage = "usage: fedsearch settings INDEX [--set FILE] [--socket PATH]   (FILE: a JSON object; null resets a key)"
    static let deleteByUsage = "usage: fedsearch delete-by INDEX FILTER [--socket PATH]   (FILTER: e.g. 'brand:Acme AND price < 10')"
    static let createUsage = "usage: fedsearch create-index NAME [--settings FILE] [--socket PATH]"
    static let deleteUsage = "usage: fedsearch delete-index NAME [--socket PATH]"
    static let getUsage = "usage: fedsearch get INDEX ID... [--socket PATH]"
    static let deleteDocumentsUsage = "usage: fedsearch delete INDEX ID... [--socket PATH]"

    static func run(_ command: String, _ args: ArraySlice<String>, socketPath: String) async -> Int32 {
        let usage: String
        let positional: Int
        let fileOption: String?
        switch command {
        case "settings": (usage, positional, fileOption) = (settingsUsage, 1, "set")
        case "delete-by": (usage, positional, fileOption) = (deleteByUsage, 2, nil)
        case "create-index": (usage, positional, fileOption) = (createUsage, 1, "settings")
        case "get": (usage, positional, fileOption) = (getUsage, -2, nil)
        case "delete": (usage, positional, fileOption) = (deleteDocumentsUsage, -2, nil)
        default: (usage, positional, fileOption) = (deleteUsage, 1, nil)
        }
        let parsed = parseCommand(args, valueOptions: Set(["socket"] + (fileOption.map { [$0] } ?? [])), usage: usage)
        // A negative count: at least that many.
        guard positional < 0 ? parsed.positional.count >= -positional : parsed.positional.count == positional else {
            fail(positional < 0 ? "give INDEX and at least one ID" : "expected \(positional) argument\(positional == 1 ? "" : "s")", usage: usage)
        }
        let index = parsed.positional[0]
        var settings: JSONObject?
        if let option = fileOption, let file = parsed.options[option] {
            do {
                guard case .object(let o) = try JSONParser.parse(try ImportCommand.readFile(file)) else {
                    fail("\(file): expected a JSON object of settings")
                }
                settings = o
            } catch { fail("\(file): \(error)") }
        }
        let operation: IndexOperation
        switch command {
        case "settings": operation = settings.map { .setSettings($0) } ?? .getSettings
        case "get": operation = .getDocuments(Array(parsed.positional.dropFirst()))
        case "delete": operation = .documents(op: "deleteDocuments", parsed.positional.dropFirst().map { .delete($0) })
        case "delete-by": operation = .deleteBy(DaemonRequest.parameters(["filters": .string(parsed.positional[1])]))
        case "create-index": operation = .createIndex(settings: settings ?? [:])
        default: operation = .deleteIndex
        }
        var status: Int32 = 0
        let frames = await DaemonRequest.run(
            .index(index, operation), socketPath: parsed.options["socket"] ?? socketPath, timeoutSeconds: 300)
        for frame in frames {
            switch frame {
            case .info(_, "settings", let p):
                print(JSONWriter.string(p["settings"] ?? .null))
            case .info(_, "documents", let p):
                for d in p["results"]?.arrayValue ?? [] { print(JSONWriter.string(d)) }
            case .info(_, "written", let p):
                let what = command == "settings" ? "settings stored, index rebuilt"
                    : p["deleted"]?.intValue.map { "deleted \($0) document\($0 == 1 ? "" : "s")" } ?? "deleted"
                print("\(what); index \(index) now holds \(p["documents"]?.intValue ?? 0) documents (batch \(p["seq"]?.intValue ?? 0))")
            case .info(_, "indexCreated", _):
                print("created index \(index)")
            case .info(_, "indexDeleted", _):
                print("deleted index \(index)")
            default:
                HumanOutput().print(frame)
                status = 1
            }
        }
        return status
    }
}
