import Synchronization
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
// EmbeddedIndex (this file) is the public face: build once, then search from any thread.

import FederatedSearchCore

/// An in-memory search index over a fixed set of documents.
///
/// Immutable once built: any number of queries can run concurrently without locks (a small
/// pool of scratch buffers is the only shared mutable state, held only to pop or push).
public final class EmbeddedIndex: Searchable {
    /// The index name, echoed in results.
    public let name: String
    /// The settings it was built with.
    public let settings: IndexSettings
    /// Those settings as the config gave them (what `getSettings` shows).
    public let configuredSettings: JSONObject
    let snapshot: IndexSnapshot
    let scratchPool: ScratchPool
    /// Each document's position by objectID, built on the first ``storedDocuments(_:)``.
    private let positions = Mutex<[String: Int]?>(nil)

    /// Builds the index. Every document needs a string `objectID`; a violation throws
    /// `invalid_field` naming the document (`movies: document 12: objectID must be a string`).
    public init(
        name: String, settings: IndexSettings, documents: [JSONObject], configuredSettings: JSONObject = [:]
    ) throws(SearchError) {
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
        self.name = name
        self.settings = settings
        self.configuredSettings = configuredSettings
        snapshot = IndexSnapshot(settings: settings, documents: documents, objectIDs: ids)
        guard snapshot.text.postings.docs.count < Int(MatchFlags.postingMask) else {
            throw SearchError(.invalidField, "\(name): the corpus has more than 2^28 postings")
        }
        scratchPool = ScratchPool(documentCount: documents.count)
    }

    /// The stored documents with these objectIDs, in order (nil for an id it does not hold).
    public func storedDocuments(_ ids: [String]) -> [JSONObject?] {
        positions.withLock { map in
            if map == nil {
                var m: [String: Int] = [:]
                m.reserveCapacity(snapshot.objectIDs.count)
                for (i, id) in snapshot.objectIDs.enumerated() { m[id] = i }
                map = m
            }
            return ids.map { id in map![id].map { snapshot.documents[$0] } }
        }
    }

    /// What the `indices` op reports.
    public var description: SearchableDescription {
        SearchableDescription(
            kind: "embedded", documentCount: snapshot.documentCount,
            searchableAttributes: snapshot.text.slots.map(\.name),
            attributesForFaceting: settings.attributesForFaceting.map(\.name))
    }

    /// The number of documents.
    public var documentCount: Int { snapshot.documentCount }

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

    /// Runs a query; `pruning: false` ranks every candidate and `fastHighlight: false`
    /// highlights every attribute word by word (for tests comparing the two).
    func run(_ query: SearchQuery, pruning: Bool = true, fastHighlight: Bool = true) throws -> SearchResults {
        var scratch = scratchPool.take()
        defer { scratchPool.give(scratch) }
        var executor = QueryExecutor(index: snapshot, name: name, query: query)
        executor.pruning = pruning
        executor.fastHighlight = fastHighlight
        return try executor.execute(scratch: &scratch)
    }
}
