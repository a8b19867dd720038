import FederatedSearchProtocol

extension FacetListInteractor {
    /// Shows the counts of `attribute` from `source`'s results (the attribute is added to the
    /// source's `facets`).
    @discardableResult
    public func connectSearcher(_ source: some SearchResultsSource, attribute: String) -> any Connection {
        let c = ClosureConnection(
            connect: { [weak self, weak source] connection in
                guard self != nil, let source else { return }
                if !source.parameters.facets.contains(attribute) && !source.parameters.facets.contains("*") {
                    source.parameters.facets.append(attribute)
                }
                source.onResults.subscribePast(with: connection) { [weak self] _, results in
                    let counts = results.facets.first { $0.attribute == attribute }?.values ?? []
                    self?.update(counts.map { Facet(value: $0.value, count: $0.count) }, exhaustive: results.exhaustiveNbHits)
                }
            },
            disconnect: { [weak source] connection in
                source?.onResults.cancelSubscription(for: connection)
            })
        connections.append(c)
        return c
    }

    /// Shows the values `searcher` finds while its facet query is not empty ("search in
    /// genres"), in place of the counted ones; they toggle through the same filter state.
    @discardableResult
    public func connectFacetSearcher(_ searcher: FacetSearcher) -> any Connection {
        let c = ClosureConnection(
            connect: { [weak self, weak searcher] connection in
                guard self != nil, let searcher else { return }
                searcher.onResults.subscribe(with: connection) { [weak self, weak searcher] _, results in
                    guard let self, let searcher, let query = searcher.query, !query.isEmpty, results.facetQuery == query else { return }
                    self.updateSearch(results.facetHits.map { Facet(value: $0.value, count: $0.count) })
                }
                searcher.onQueryChanged.subscribe(with: connection) { [weak self] _, query in
                    if (query ?? "").isEmpty { self?.updateSearch(nil) }
                }
            },
            disconnect: { [weak searcher] connection in
                searcher?.onResults.cancelSubscription(for: connection)
                searcher?.onQueryChanged.cancelSubscription(for: connection)
            })
        connections.append(c)
        return c
    }

    /// Shows the counts of `attribute` merged across `searcher`'s indices: the searcher asks
    /// for merged facets (`mergeFacets`, if it did not), each source that can filter on the
    /// attribute (or its alias, ``FederatedSearcher/facetAliases``) counts it, and the values
    /// come from the merged frame. Connected to the searcher's filter state with the same
    /// attribute, a value toggles the filter on every index that has it.
    @discardableResult
    public func connectMergedFacets(of searcher: FederatedSearcher, attribute: String) -> any Connection {
        let c = ClosureConnection(
            connect: { [weak self, weak searcher] connection in
                guard self != nil, let searcher else { return }
                if searcher.mergeFacets == nil { searcher.mergeFacets = ["maxValuesPerFacet": 100] }
                for source in searcher.sources {
                    let own = searcher.facetAliases[attribute]?[source.name] ?? attribute
                    guard source.filterableAttributes?.contains(own) ?? true else { continue }
                    if !source.parameters.facets.contains(own) && !source.parameters.facets.contains("*") {
                        source.parameters.facets.append(own)
                    }
                }
                searcher.onMergedResults.subscribePast(with: connection) { [weak self] _, merged in
                    self?.update(merged.mergedFacets[attribute]?.values ?? [], exhaustive: merged.extra["exhaustive"]?.boolValue ?? true)
                }
            },
            disconnect: { [weak searcher] connection in
                searcher?.onMergedResults.cancelSubscription(for: connection)
            })
        connections.append(c)
        return c
    }
}
