extension FacetListInteractor {
    /// Shows the counts of `attribute` from `source`'s results (the attribute is added to the
    /// source's `facets`).
    @discardableResult
    public func connectSearcher(_ source: some SearchResultsSource, attribute: String) -> any Connection {
        let c = ClosureConnection(connect: { [weak self, weak source] connection in
            guard self != nil, let source else { return }
            if !source.parameters.facets.contains(attribute) && !source.parameters.facets.contains("*") {
                source.parameters.facets.append(attribute)
            }
            source.onResults.subscribePast(with: connection) { [weak self] _, results in
                let counts = results.facets.first { $0.attribute == attribute }?.values ?? []
                self?.update(counts.map { Facet(value: $0.value, count: $0.count) }, exhaustive: results.exhaustiveNbHits)
            }
        }, disconnect: { [weak source] connection in
            source?.onResults.cancelSubscription(for: connection)
        })
        connections.append(c)
        return c
    }

    /// Shows the values `searcher` finds while its facet query is not empty ("search in
    /// genres"), in place of the counted ones; they toggle through the same filter state.
    @discardableResult
    public func connectFacetSearcher(_ searcher: FacetSearcher) -> any Connection {
        let c = ClosureConnection(connect: { [weak self, weak searcher] connection in
            guard self != nil, let searcher else { return }
            searcher.onResults.subscribe(with: connection) { [weak self, weak searcher] _, results in
                guard let self, let searcher, let query = searcher.query, !query.isEmpty, results.facetQuery == query else { return }
                self.updateSearch(results.facetHits.map { Facet(value: $0.value, count: $0.count) })
            }
            searcher.onQueryChanged.subscribe(with: connection) { [weak self] _, query in
                if (query ?? "").isEmpty { self?.updateSearch(nil) }
            }
        }, disconnect: { [weak searcher] connection in
            searcher?.onResults.cancelSubscription(for: connection)
            searcher?.onQueryChanged.cancelSubscription(for: connection)
        })
        connections.append(c)
        return c
    }
}
