import FederatedSearchCore

extension EmbeddedIndex {
    /// The ids of the documents that pass the filters of `parameters` (`filters`,
    /// `facetFilters`, `numericFilters`, `tagFilters`, `aroundLatLng` with `aroundRadius`),
    /// in index order: what a `deleteBy` removes. Throws `invalid_filter` as a search would;
    /// refuses parameters that filter nothing, so a mistake cannot empty the index.
    public func objectIDs(matching parameters: SearchParameters) throws(SearchError) -> [String] {
        let plan = try FilterPlan(index: snapshot, parameters: parameters)
        guard let set = plan.all else {
            throw SearchError(.missingField, "params: deleteBy needs a filter (filters, facetFilters, numericFilters, tagFilters or aroundLatLng with aroundRadius)")
        }
        return set.members().map { snapshot.objectIDs[Int($0)] }
    }
}
