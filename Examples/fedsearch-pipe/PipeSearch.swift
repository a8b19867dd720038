import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import Foundation
import InstantSearch
import CustomSearchBox

/// `fedsearch-pipe [--socket PATH] [INDEX...]`: each line of standard input is a query,
/// searched in the indices (default: movies and products) through the library's search box
/// interactor, whose controller is ``PipeSearchBoxController``; each index's titles are
/// printed as its answer arrives, then each source's status.
///
///     printf 'star wars\nlamp\n' | fedsearch-pipe movies products
@main
struct PipeSearch {
    static func main() async {
        var args = Array(CommandLine.arguments.dropFirst())
        var socket = ProcessInfo.processInfo.environment["FEDSEARCH_SOCKET"] ?? "/tmp/fedsearchd/fedsearchd.sock"
        if let i = args.firstIndex(of: "--socket"), i + 1 < args.count {
            socket = args[i + 1]
            args.removeSubrange(i...(i + 1))
        }
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
        searcher.onStatus.subscribe(with: printer) { _, s in
            print("done \(s.status.rawValue): " + s.sources.map { "\($0.name) \($0.report.status.rawValue)" }.joined(separator: ", "))
            ends.signal()
        }
        searcher.onError.subscribe(with: printer) { _, e in
            print("error: \(e)")
            if e.source == nil { ends.signal() }
        }
        await pipe.run(PipeSearchBoxController.standardInputLines()) { await ends.wait() }
    }

    @MainActor final class Printer {}

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
