import FederatedSearchCore

extension LiveAnswer {
    /// Source `name`'s page as results, for whatever shows search results (nil: no page held).
    /// Timings are not kept by a live page: `processingTimeMS` is 0.
    public func results(of name: String) throws(SearchError) -> SearchResults? {
        guard let page = pages[name] else { return nil }
        return try SearchResults(json: .object(page.answer), path: "results")
    }

    /// The merged list's page as merged results (nil: none held).
    public func mergedResults() throws(SearchError) -> MergedResults? {
        guard let merged else { return nil }
        return try MergedResults(json: merged.answer)
    }
}

extension LivePage {
    /// The `objectID`s of the hits of `new` that are not on `old`, or whose attributes changed
    /// there: what a dashboard marks for a moment. Ranking members (`_rankingScore`, a merged
    /// hit's `_federation` rank) and highlights are not looked at: they move with every write.
    public static func freshObjectIDs(from old: LivePage?, to new: LivePage) -> Set<String> {
        func key(_ hit: JSONObject) -> String {
            (hit["_index"]?.stringValue ?? "") + "\u{0}" + (hit["objectID"]?.stringValue ?? "")
        }
        func attributes(_ hit: JSONObject) -> JSONObject { JSONObject(hit.entries.filter { !$0.key.hasPrefix("_") }) }
        var before: [String: JSONObject] = [:]
        for hit in old?.hits ?? [] { before[key(hit)] = attributes(hit) }
        var fresh = Set<String>()
        for hit in new.hits where before[key(hit)] != attributes(hit) {
            if let id = hit["objectID"]?.stringValue { fresh.insert(id) }
        }
        return fresh
    }
}
