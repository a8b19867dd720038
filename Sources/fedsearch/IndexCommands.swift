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
    static let createUsage =
        "usage: fedsearch create-index NAME [--settings FILE | --searchable FILE] [--socket PATH]   (--searchable: a searchable's object as in the config, e.g. a typesense backend)"
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
        let extra = command == "create-index" ? ["searchable"] : []
        let parsed = parseCommand(args, valueOptions: Set(["socket"] + extra + (fileOption.map { [$0] } ?? [])), usage: usage)
        // A negative count: at least that many.
        guard positional < 0 ? parsed.positional.count >= -positional : parsed.positional.count == positional else {
            fail(
                positional < 0 ? "give INDEX and at least one ID" : "expected \(positional) argument\(positional == 1 ? "" : "s")",
                usage: usage)
        }
        let index = parsed.positional[0]
        let settings = fileOption.flatMap { parsed.options[$0] }.map { readObject($0, of: "settings") }
        let searchable = parsed.options["searchable"].map { readObject($0, of: "a searchable") }
        if settings != nil, searchable != nil { fail("give --settings (an embedded index) or --searchable, not both", usage: usage) }
        let operation: IndexOperation
        switch command {
        case "settings": operation = settings.map { .setSettings($0) } ?? .getSettings
        case "get": operation = .getDocuments(Array(parsed.positional.dropFirst()))
        case "delete": operation = .documents(op: "deleteDocuments", parsed.positional.dropFirst().map { .delete($0) })
        case "delete-by": operation = .deleteBy(DaemonRequest.parameters(["filters": .string(parsed.positional[1])]))
        case "create-index": operation = .createIndex(settings: settings ?? [:], searchable: searchable)
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
                let what =
                    command == "settings"
                    ? "settings stored, index rebuilt"
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

    /// A JSON object read from a file; exits with a message if it is not one.
    private static func readObject(_ file: String, of what: String) -> JSONObject {
        do {
            guard case .object(let o) = try JSONParser.parse(try ImportCommand.readFile(file)) else {
                fail("\(file): expected a JSON object of \(what)")
            }
            return o
        } catch { fail("\(file): \(error)") }
    }
}
