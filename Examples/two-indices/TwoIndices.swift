// The complete small program of docs/CLIENT.md (kept the same as the page's; built by `make test`).
import FederatedSearchClient
import FederatedSearchCore
import Foundation
import InstantSearch

@main
struct TwoIndices {
    @MainActor final class Printer {}

    @MainActor
    static func main() async {
        let socket = ProcessInfo.processInfo.environment["FEDSEARCH_SOCKET"] ?? "/tmp/fedsearchd/fedsearchd.sock"
        let connection = DaemonConnection(path: socket)
        let searcher = FederatedSearcher(
            transport: connection, indices: [SearcherId(index: "movies"), SearcherId(index: "products")])
        for source in searcher.sources { source.parameters.hitsPerPage = 5 }

        // A refinement list of movie genres, disjunctive, on a filter state the searcher sends.
        let filters = FilterState()
        searcher.source("movies")!.filterableAttributes = ["genres", "year", "cast"]
        searcher.source("products")!.filterableAttributes = ["supplier", "price"]
        searcher.connectFilterState(filters)
        let genres = FacetListInteractor()
        genres.connectSearcher(searcher.source("movies")!, attribute: "genres")
        genres.connectFilterState(filters, attribute: "genres", operator: .or)

        // Each index's hits as its frame arrives.
        let printer = Printer()
        searcher.onIndexResults.subscribe(with: printer) { _, r in
            let titles = r.results.hits.compactMap { $0.attribute("title")?.stringValue }
            print("\(r.source): \(r.results.nbHits) hits: \(titles.joined(separator: " | "))")
        }

        searcher.query = CommandLine.arguments.dropFirst().joined(separator: " ")
        switch await searcher.searchAndWait() {
        case .finished(let s):
            print(s.sources.map { "\($0.name) \($0.report.status.rawValue) \($0.report.ms) ms" }.joined(separator: ", "))
        case .failed(let e): print("error: \(e)")
        case .superseded: break
        }
        print("genres:", genres.items.prefix(5).map { "\($0.value) (\($0.count))" })
    }
}
