import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import Foundation
import InstantSearch
import CustomSearchBox

/// `fedsearch-pipe [--socket PATH] [INDEX...]`: each line of standard input is a query,
/// searched in the indices (default: movies and products) through the library's search box
/// interactor, whose controller is ``PipeSearchBoxController``; each index's titles are
/// printed as its answer arrives, then each source's status. It exits 1 if any query was
/// not answered by every index (an index failed or timed out, or the daemon could not be
/// reached), 2 on a usage error.
///
///     printf 'star wars\nlamp\n' | fedsearch-pipe movies products
@main
struct PipeSearch {
    static let usage = """
        usage: fedsearch-pipe [--socket PATH] [INDEX...]

          Searches each line of standard input in the indices (default: movies products) and
          prints each index's first titles as it answers, then each source's status.
          Exit status: 0 if every query was answered by every index, 1 if not (an index failed
          or timed out, or the daemon could not be reached), 2 on a usage error.
          The socket: --socket, else $FEDSEARCH_SOCKET, else /tmp/fedsearchd/fedsearchd.sock.
        """

    static func main() async {
        var args = Array(CommandLine.arguments.dropFirst())
        var socket = ProcessInfo.processInfo.environment["FEDSEARCH_SOCKET"] ?? "/tmp/fedsearchd/fedsearchd.sock"
        if args.contains("--help") || args.contains("-h") {
            print(usage)
            exit(0)
        }
        if let i = args.firstIndex(of: "--socket") {
            guard i + 1 < args.count else { usageError("--socket needs a value") }
            socket = args[i + 1]
            args.removeSubrange(i...(i + 1))
        }
        if let unknown = args.first(where: { $0.hasPrefix("-") }) { usageError("unknown option '\(unknown)'") }
        let indices = args.isEmpty ? ["movies", "products"] : args
        let searcher = FederatedSearcher(
            transport: DaemonConnection(path: socket), indices: indices.map { SearcherId(index: $0) })
        for s in searcher.sources { s.parameters.hitsPerPage = 3 }
        let box = SearchBoxInteractor()
        let pipe = PipeSearchBoxController()
        box.connectSearcher(searcher, searchTriggeringMode: .searchOnSubmit)
        box.connectController(pipe)

        let printer = Printer()
        searcher.onIndexResults.subscribe(with: printer) { _, r in
            let titles = r.results.hits.map { $0.attribute("title")?.stringValue ?? $0.objectID }
            print("\(r.source) (\(r.results.nbHits)): \(titles.joined(separator: " | "))")
        }
        let ends = Turns()
        searcher.onStatus.subscribe(with: printer) { printer, s in
            print("done \(s.status.rawValue): " + s.sources.map { "\($0.name) \($0.report.status.rawValue)" }.joined(separator: ", "))
            if s.status != .ok { printer.failed = true }
            ends.signal()
        }
        searcher.onError.subscribe(with: printer) { printer, e in
            print("error: \(e)")
            printer.failed = true
            if e.source == nil { ends.signal() }
        }
        await pipe.run(PipeSearchBoxController.standardInputLines()) { await ends.wait() }
        exit(printer.failed ? 1 : 0)
    }

    static func usageError(_ message: String) -> Never {
        FileHandle.standardError.write(Data("fedsearch-pipe: \(message)\n\(usage)\n".utf8))
        exit(2)
    }

    @MainActor final class Printer {
        /// Whether a query was not answered by every index.
        var failed = false
    }

    /// Each query's end, awaited before the next line is read.
    @MainActor final class Turns {
        private var pending = 0
        private var waiter: CheckedContinuation<Void, Never>?

        func signal() {
            if let w = waiter {
                waiter = nil
                w.resume()
            } else {
                pending += 1
            }
        }

        func wait() async {
            if pending > 0 {
                pending -= 1
                return
            }
            await withCheckedContinuation { waiter = $0 }
        }
    }
}
