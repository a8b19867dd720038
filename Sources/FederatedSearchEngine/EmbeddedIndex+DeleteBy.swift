import FederatedSearchCore

extension EmbeddedIndex {
    /// The ids of the documents that pass the filters of `parameters` (`filters`,
    /// `facetFilters`, `numericFilters`, `tagFilters`, `aroundLatLng` with `aroundRadius`),
    /// segment by segment: what a `deleteBy` removes (a filter on an attribute the index lacks
    /// matches nothing, as in a search);
    /// refuses parameters that filter nothing, so a mistake cannot empty the index.
    public func objectIDs(matching parameters: SearchParameters) throws(SearchError) -> [String] {
        var ids: [String] = []
        for s in segments {
            let plan = FilterPlan(index: s.snapshot, parameters: parameters, exactValues: ExactValues(segments: segments))
            guard let set = plan.all else {
                throw SearchError(
                    .missingField,
                    "params: deleteBy needs a filter (filters, facetFilters, numericFilters, tagFilters or aroundLatLng with aroundRadius)")
            }
            ids += set.members().filter { s.isLive($0) }.map { s.snapshot.objectIDs[Int($0)] }
        }
        return ids
    }
}
