import FederatedSearchBackends
import FederatedSearchCore

/// An example custom backend written with the ``SearchClient`` protocol: a shelf of books
/// held in memory, searched by word prefixes in `title` and `author`.
///
/// Copy it as the start of your own backend: `Parameters` is the backend's own request,
/// `Results` its own answer, and the three `map` functions translate. A real backend would
/// call a service in ``search(_:)``; this one filters an array.
public struct BookshelfClient: SearchClient {
    /// The backend's request: what `map(query:)` produces.
    public struct Request: Sendable, Equatable {
        public var words: [String]
        public var filter: FilterExpression?
        public var page: Int
        public var hitsPerPage: Int
        /// Facets to count, each with the filter to count it under (a refined disjunctive
        /// facet is counted without its own refinements).
        public var facets: [(attribute: String, filter: FilterExpression?)]

        public static func == (a: Request, b: Request) -> Bool {
            a.words == b.words && a.filter == b.filter && a.page == b.page && a.hitsPerPage == b.hitsPerPage
                && a.facets.elementsEqual(b.facets) { $0.attribute == $1.attribute && $0.filter == $1.filter }
        }
    }

    /// The backend's answer: the page of books and the counts.
    public struct Answer: Sendable {
        public var books: [Book]
        public var total: Int
        public var page: Int
        public var hitsPerPage: Int
        public var facets: [FacetCounts]
    }

    /// Searched attributes, in priority order.
    public static let searchableAttributes = ["title", "author"]
    /// Attributes that can be faceted on.
    public static let facetAttributes = ["genre", "author", "year"]

    public let books: [Book]

    public init(books: [Book]) { self.books = books }

    public var description: SearchableDescription {
        SearchableDescription(
            kind: "example.bookshelf", documentCount: books.count, searchableAttributes: Self.searchableAttributes,
            attributesForFaceting: Self.facetAttributes)
    }

    public func map(query: SearchQuery) throws -> Request {
        let p = query.parameters
        let words = query.text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
        let facets = Self.requestedFacets(p.facets).map { (attribute: $0, filter: p.filter) }
        return Request(words: words, filter: p.filter, page: p.page, hitsPerPage: p.hitsPerPage, facets: facets)
    }

    public func map(query: SearchQuery, disjunctiveFacets: Set<String>, refinements: FacetRefinements) throws -> Request {
        var request = try map(query: query)
        for i in request.facets.indices where refinements.values[request.facets[i].attribute] != nil {
            let attribute = request.facets[i].attribute
            request.facets[i].filter = FacetRefinements.filter(query.parameters.filter, removingRefinementsOf: attribute)
        }
        return request
    }

    public func search(_ request: Request) async throws -> Answer {
        func isMatch(_ book: Book, _ filter: FilterExpression?) -> Bool {
            let words = book.words(in: Self.searchableAttributes)
            return book.matches(filter) && request.words.allSatisfy { w in words.contains { $0.hasPrefix(w) } }
        }
        let matches = books.filter { isMatch($0, request.filter) }
        try Task.checkCancellation()
        let facets = request.facets.map { facet in
            var counts: [String: Int] = [:]
            for book in books where isMatch(book, facet.filter) {
                for v in book.values(of: facet.attribute) { counts[v, default: 0] += 1 }
            }
            let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
            return FacetCounts(attribute: facet.attribute, values: sorted.map { (value: $0.key, count: $0.value) })
        }
        let page = Array(matches.dropFirst(request.page * request.hitsPerPage).prefix(request.hitsPerPage))
        return Answer(books: page, total: matches.count, page: request.page, hitsPerPage: request.hitsPerPage, facets: facets)
    }

    public func map(results answer: Answer) throws -> SearchResults {
        let first = answer.page * answer.hitsPerPage
        let hits = answer.books.enumerated().map { i, book in
            // No relevance score of its own: derive one from the rank, in (0, 1].
            Hit(objectID: book.objectID, attributes: book.fields, rankingScore: 1 / (1 + Double(first + i) / 10))
        }
        let pages = answer.hitsPerPage == 0 ? 0 : (answer.total + answer.hitsPerPage - 1) / answer.hitsPerPage
        return SearchResults(
            hits: hits, nbHits: answer.total, page: answer.page, nbPages: pages, hitsPerPage: answer.hitsPerPage,
            facets: answer.facets)
    }

    static func requestedFacets(_ facets: [String]) -> [String] {
        facets.contains("*") ? facetAttributes : facets.filter { facetAttributes.contains($0) }
    }
}
