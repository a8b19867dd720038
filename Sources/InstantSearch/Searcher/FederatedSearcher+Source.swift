import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

extension FederatedSearcher {
    /// One source of the request: an index under the name it answers with.
    @MainActor
    public final class Source: SearchResultsSource {
        /// The index searched.
        public let id: SearcherId
        /// The name the source answers under (the index's, unless one index feeds two columns).
        public let name: String
        /// The parameters for this source (its page, hits per page, facets, own filters); those
        /// left at their defaults take the searcher's ``FederatedSearcher/parameters``.
        public var parameters: SearchParameters
        /// How much the source's scores weigh in the merge.
        public var weight: Double = 1
        /// The attributes this index can filter on, when known: filters of the connected
        /// states on other attributes are left out of its requests, so one filter state can
        /// drive indices of different schemas (nil: every filter is sent).
        public var filterableAttributes: Set<String>?
        /// This source's results, as each answer arrives.
        public let onResults = Observer<SearchResults>()
        /// This source's failures (timeout, backend error, bad filter).
        public let onError = Observer<SearcherError>()
        /// The filter states whose filters apply to this source, with the attribute names
        /// they take here (a facet alias: `brand` in the state, `supplier` in this index).
        var filterStates: [(state: WeakBox<FilterState>, aliases: [String: String])] = []
        weak var searcher: FederatedSearcher?

        init(id: SearcherId, name: String, parameters: SearchParameters) {
            self.id = id
            self.name = name
            self.parameters = parameters
        }

        /// Sends the federated search this source belongs to.
        public func search() { searcher?.search() }

        /// Asks this index alone for page `page` of the current query, so a column that
        /// scrolls or pages does not make the other columns search again; its answer comes on
        /// ``onResults`` like the others. Not part of the keystroke session: a newer
        /// keystroke does not cancel it, and a hits interactor ignores a page of an old query.
        public func search(page: Int) {
            parameters.page = page
            searcher?.loadPage(of: self)
        }

        /// The parameters sent: ``parameters`` with the filters of the searcher's own
        /// parameters and of the connected states added, and their disjunctive facets.
        public var effectiveParameters: SearchParameters {
            var p = parameters
            var extra: [FilterExpression?] = []
            var disjunctive: [String] = []
            if let shared = searcher?.parameters, let f = Self.filter(of: shared) { extra.append(f) }
            for (box, aliases) in filterStates {
                guard let state = box.object else { continue }
                let filters = state.filters.restricted(to: filterableAttributes, aliases: aliases)
                extra.append(filters.expression(aliases: aliases))
                disjunctive += filters.disjunctiveFacets(aliases: aliases)
            }
            for f in disjunctive where !p.disjunctiveFacets.contains(f) { p.disjunctiveFacets.append(f) }
            guard extra.contains(where: { $0 != nil }) else { return p }
            // The source's own filter parameters, however they were set, folded into one
            // expression with the rest (one that does not parse is left for the daemon to report).
            var own: FilterExpression?
            if p.filter != nil || Self.hasFilters(p) {
                guard let parsed = Self.filter(of: p) else { return p }
                own = parsed
            }
            let combined = FilterExpression.allOf([own] + extra)
            p.filter = combined
            p.filters = combined?.description
            (p.facetFilters, p.numericFilters, p.tagFilters) = (nil, nil, nil)
            return p
        }

        /// The conjunction of `p`'s filter parameters, parsed as the daemon parses them.
        static func filter(of p: SearchParameters) -> FilterExpression? {
            if let f = p.filter { return f }
            guard hasFilters(p) else { return nil }
            return (try? SearchParameters.decode(p.requestJSON()))?.filter
        }

        static func hasFilters(_ p: SearchParameters) -> Bool {
            p.filters != nil || p.facetFilters != nil || p.numericFilters != nil || p.tagFilters != nil
        }
    }
}
