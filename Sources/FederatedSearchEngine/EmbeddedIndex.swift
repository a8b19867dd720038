// FederatedSearchEngine: the embedded search engine of fedsearchd.
//
// It owns every stage between documents and an Algolia-shaped response:
//   Analysis/  folding, word scanning, stemming, stop words, synonyms (same at index and query time)
//   Settings/  IndexSettings and ranking rules, decoded from the searchable's config
//   Index/     the immutable IndexSnapshot: term dictionary, postings, facet fields, ordinals
//   Query/     query parsing, word expansion (prefix, typos, stems), candidate intersection, filters
//   Ranking/   tie-breaking rules packed into one integer key per hit, top-k selection, BM25, scores
//   Facets/    facet counts (conjunctive and disjunctive in one pass), stats, facet value search
//   Results/   hits: retrieved attributes, highlighting, snippets, ranking info
//   Segments/  updates in place: segments with deleted documents, searched together, merged
// EmbeddedIndex (this file) is the public face: build, search from any thread, update.

import FederatedSearchCore

/// An in-memory search index.
///
/// Immutable once built: any number of queries can run concurrently without locks (a small
/// pool of scratch buffers per segment is the only shared mutable state, held only to pop or
/// push). An update (``updated(adding:deleting:)``) makes a new index that shares this one's
/// segments, with the changed documents in a segment of their own.
public final class EmbeddedIndex: Searchable {
    /// The index name, echoed in results.
    public let name: String
    /// The settings it was built with.
    public let settings: IndexSettings
    /// Those settings as the config gave them (what `getSettings` shows).
    public let configuredSettings: JSONObject
    /// Its segments: one for an index built whole; never empty.
    let segments: [Segment]

    /// The settings that are search parameters too (see ``IndexSettings/queryDefaults``).
    public var queryDefaults: JSONObject { settings.queryDefaults }

    /// The snapshot of an index built whole (its first segment's).
    var snapshot: IndexSnapshot { segments[0].snapshot }

    /// Builds the index. Every document needs a string `objectID`; a violation throws
    /// `invalid_field` naming the document (`movies: document 12: objectID must be a string`).
    /// `positions` give the documents' places in the index's order, ascending (nil: as given);
    /// an index that is updated later needs them for documents added after.
    public init(
        name: String, settings: IndexSettings, documents: [JSONObject], positions: [Int64]? = nil,
        configuredSettings: JSONObject = [:]
    ) throws(SearchError) {
        self.name = name
        self.settings = settings
        self.configuredSettings = configuredSettings
        segments = [try Self.segment(name: name, settings: settings, documents: documents, positions: positions)]
    }

    init(name: String, settings: IndexSettings, configuredSettings: JSONObject, segments: [Segment]) {
        self.name = name
        self.settings = settings
        self.configuredSettings = configuredSettings
        self.segments = segments
    }

    /// A segment over `documents`, checked as ``init(name:settings:documents:positions:configuredSettings:)`` says.
    static func segment(
        name: String, settings: IndexSettings, documents: [JSONObject], positions: [Int64]?
    ) throws(SearchError) -> Segment {
        var ids: [String] = []
        ids.reserveCapacity(documents.count)
        for (i, doc) in documents.enumerated() {
            guard let v = doc["objectID"] else {
                throw SearchError(.invalidField, "\(name): document \(i): objectID is missing")
            }
            guard case .string(let id) = v else {
                throw SearchError(.invalidField, "\(name): document \(i): objectID must be a string, got \(v.typeName)")
            }
            ids.append(id)
        }
        guard documents.count < Int(UInt32.max) else {
            throw SearchError(.invalidField, "\(name): too many documents")
        }
        let snapshot = IndexSnapshot(settings: settings, documents: documents, objectIDs: ids, positions: positions)
        guard snapshot.text.postings.docs.count < Int(MatchFlags.postingMask) else {
            throw SearchError(.invalidField, "\(name): the corpus has more than 2^28 postings")
        }
        return Segment(data: SegmentData(snapshot: snapshot))
    }

    /// The stored documents with these objectIDs, in order (nil for an id it does not hold).
    public func storedDocuments(_ ids: [String]) -> [JSONObject?] {
        ids.map { id in
            for s in segments.reversed() {
                if let d = s.liveDocument(id) { return s.snapshot.documents[Int(d)] }
            }
            return nil
        }
    }

    /// Every live document, in the index's order (what copying the index copies).
    public func allDocuments() -> [JSONObject] {
        segments.flatMap { $0.liveDocuments() }.sorted { $0.position < $1.position }.map(\.document)
    }

    /// What the `indices` op reports.
    public var description: SearchableDescription {
        SearchableDescription(
            kind: "embedded", documentCount: documentCount,
            searchableAttributes: snapshot.text.slots.map(\.name),
            attributesForFaceting: settings.attributesForFaceting.map(\.name))
    }

    /// The number of documents.
    public var documentCount: Int { segments.reduce(0) { $0 + $1.liveCount } }

    /// Runs a query; stops with `CancellationError` when the task is cancelled.
    public func search(_ query: SearchQuery) async throws -> SearchResults {
        try Task.checkCancellation()
        return try run(query)
    }

    /// Runs a query synchronously (the same result as ``search(_:)``); throws `SearchError`
    /// for a bad request and `CancellationError` if the calling task is cancelled.
    public func searchSync(_ query: SearchQuery) throws -> SearchResults {
        try run(query)
    }

    /// Whether it is one segment with no deletion (then a query runs on that snapshot alone).
    var isWhole: Bool { segments.count == 1 && segments[0].live == nil }

    /// Runs a query; `pruning: false` ranks every candidate and `fastHighlight: false`
    /// highlights every attribute word by word (for tests comparing the two).
    func run(_ query: SearchQuery, pruning: Bool = true, fastHighlight: Bool = true) throws -> SearchResults {
        guard isWhole else {
            var search = SegmentedSearch(segments: segments, name: name, query: query)
            search.pruning = pruning
            search.fastHighlight = fastHighlight
            return try search.execute()
        }
        let pool = segments[0].data.scratchPool
        var scratch = pool.take()
        defer { pool.give(scratch) }
        var executor = QueryExecutor(index: snapshot, name: name, query: query)
        executor.pruning = pruning
        executor.fastHighlight = fastHighlight
        return try executor.execute(scratch: &scratch)
    }
}
