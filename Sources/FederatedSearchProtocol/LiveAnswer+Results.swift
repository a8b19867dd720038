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

extension LiveDelta {
    /// The identities of the hits this delta brought onto the page or changed there: their
    /// `objectID`s (for a dashboard that marks them for a moment).
    public var freshObjectIDs: Set<String> {
        Set((added + changed).compactMap { $0.hit["objectID"]?.stringValue })
    }
}
