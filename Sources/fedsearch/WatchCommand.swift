#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// `fedsearch watch`: a live search (the `subscribe` op). The first answer prints as `search`
/// prints it; then, each time a write changes the answer, the page that changed, with new hits
/// marked. Runs until interrupted or the daemon goes away.
enum WatchCommand {
    static let usage = """
        usage: fedsearch watch QUERY [--index a,b] [--facets f,g] [--filters EXPR] [--hits N] [--page N]
                                     [--interval MS] [--json] [--socket PATH]

          The options of fedsearch search, and:
          --interval MS    at most one update per this long (default 100): writes in between
                           come together in the next
          --json           print the raw NDJSON frames (update and resync frames as the
                           protocol sends them: docs/PROTOCOL.md)
        """

    static func run(_ args: ArraySlice<String>, socketPath defaultPath: String) async -> Int32 {
        guard let (parsed, request) = searchCommand(args, usage: usage, extraValues: ["interval"]) else { return 0 }
        let interval: Int
        do { interval = try intOption(parsed, "interval", range: 0...3_600_000) ?? RequestDecoder.defaultMinIntervalMs } catch let e
            as UsageError
        {
            fail(e.message, usage: usage)
        } catch { fail("\(error)") }
        let json = parsed.flags.contains("json")
        let out = HumanOutput()
        let connection = DaemonConnection(path: parsed.options["socket"] ?? defaultPath)
        defer { connection.close() }
        var answer = LiveAnswer()
        var answered = false
        do {
            for try await frame in try connection.send(.subscribe(request, minIntervalMs: interval)) {
                if json { print(JSONWriter.string(frame.json())) }
                let before = answer
                // Every frame: the first answer's build the pages, the updates change them.
                let change = try answer.take(frame)
                if !json {
                    if !answered {
                        out.print(frame)
                    } else if case .page(let name) = change {
                        printChange(name, before: before, after: answer, out: out)
                    }
                }
                if case .done = frame { answered = true }
                if case .error(_, nil, _) = frame, !answered { return 1 }
                fflush(nil)
            }
        } catch {
            fail("\(error)")
        }
        return 0
    }

    /// One changed page: its count and hits, those new since the last marked `+`.
    static func printChange(_ name: String?, before: LiveAnswer, after: LiveAnswer, out: HumanOutput) {
        guard let page = name.map({ after.pages[$0] }) ?? after.merged else { return }
        let old = name.map { before.pages[$0] } ?? before.merged
        let seen = Set((old?.hits ?? []).compactMap { $0["objectID"]?.stringValue })
        let nbHits = page.fields["nbHits"]?.intValue.map(String.init) ?? "?"
        print(out.bold("update \(after.seq)") + "  \(name ?? "merged"): \(nbHits) hits")
        for (i, hit) in page.hits.enumerated() {
            let id = hit["objectID"]?.stringValue ?? "?"
            let label = ["title", "name"].lazy.compactMap { hit[$0]?.stringValue }.first ?? id
            print("  \(seen.contains(id) ? " " : "+") \(i + 1). \(label)  " + out.dim("[\(id)]"))
        }
    }
}
