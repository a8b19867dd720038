import FederatedSearchCore

extension EmbeddedIndex {
    /// Whether ``updated(adding:deleting:)`` answers exactly as an index rebuilt from the same
    /// documents would. Not when the searchable attributes are found in the documents (no
    /// `searchableAttributes` setting): one document may add an attribute, or take one away
    /// when deleted, and so change every document's attribute slots; such an index is rebuilt.
    public var updatesInPlace: Bool { !settings.searchableAttributes.isEmpty }

    /// This index with the documents named in `deleting` removed and `adding` added (each
    /// replacing a document with its objectID, if there is one), at their `position`s in
    /// the index's order. The new documents make a segment of their own; the others keep
    /// theirs, with the removed documents marked deleted. Costs what changes, not the index's
    /// size. objectIDs in `adding` must be distinct strings.
    public func updated(
        adding: [(position: Int64, document: JSONObject)], deleting: [String]
    ) throws(SearchError) -> EmbeddedIndex {
        var removed = Set(deleting)
        for a in adding {
            if case .string(let id)? = a.document["objectID"] { removed.insert(id) }
        }
        var next: [Segment] = []
        for s in segments {
            let docs: [UInt32]
            if removed.count < s.liveCount {
                docs = removed.compactMap { s.liveDocument($0) }
            } else {
                let ids = s.snapshot.objectIDs
                docs = (0..<UInt32(ids.count)).filter { s.isLive($0) && removed.contains(ids[Int($0)]) }
            }
            let kept = s.deleting(docs)
            if kept.liveCount > 0 { next.append(kept) }
        }
        if !adding.isEmpty {
            let sorted = adding.sorted { $0.position < $1.position }
            next.append(
                try Self.segment(
                    name: name, settings: settings, documents: sorted.map(\.document), positions: sorted.map(\.position)))
            // The engine's limit holds for the live postings of all segments together, so
            // that a merge, and the build at the next start, stay within it.
            let postings = next.reduce(0) { $0 + $1.snapshot.text.postings.docs.count - ($1.live?.deletedPostingCount ?? 0) }
            guard postings < Int(MatchFlags.postingMask) else {
                throw SearchError(.invalidField, "\(name): the corpus would have more than 2^28 postings")
            }
        }
        if next.isEmpty { next = [try Self.segment(name: name, settings: settings, documents: [], positions: [])] }
        return EmbeddedIndex(name: name, settings: settings, configuredSettings: configuredSettings, segments: next)
    }

    /// Builds what the first update would otherwise build on the writer's time: each
    /// segment's documents by objectID (for finding the ones an update replaces).
    public func prepareForUpdates() {
        for s in segments { s.data.prepareDocumentsByID() }
    }

    /// How many segments it has (`stats` shows it).
    public var segmentCount: Int { segments.count }

    /// The merge its ``MergePolicy`` asks of `lane` now, if any, leaving out the segments of
    /// `running` (a merge under way in the other lane). `settling`: writes have stopped for a
    /// while, so the base lane may fold everything into one segment; no merge makes a segment
    /// of more than `maxDocuments` live documents.
    public func plannedMerge(
        _ lane: MergeLane, besides running: SegmentMerge? = nil, settling: Bool = false, maxDocuments: Int = .max
    ) -> SegmentMerge? {
        let busy = Set((running?.sources ?? []).map { ObjectIdentifier($0.data) })
        guard let picked = MergePolicy.pick(segments, lane: lane, busy: busy, settling: settling, maxDocuments: maxDocuments)
        else { return nil }
        return SegmentMerge(sources: picked.map { segments[$0] })
    }

    /// Builds a merge's segment from its sources' live documents (the costly part, done off
    /// the writer while the index keeps serving and taking writes).
    public func build(_ merge: SegmentMerge) throws(SearchError) -> MergedSegment {
        let live = merge.sources.flatMap { $0.liveDocuments() }.sorted { $0.position < $1.position }
        let segment = try Self.segment(
            name: name, settings: settings, documents: live.map(\.document), positions: live.map(\.position))
        segment.data.prepareDocumentsByID()  // here, rather than by the next write
        return MergedSegment(sources: merge.sources, segment: segment)
    }

    /// This index with a merge's sources replaced by its segment, less the documents deleted
    /// from them since the merge began. A source no longer here lost all its documents
    /// meanwhile (deleted, cleared, or the index rebuilt whole): none of them is kept.
    public func completing(_ merged: MergedSegment) -> EmbeddedIndex {
        var rest = segments
        var deletedSince: [String] = []
        for source in merged.sources {
            let ids = source.snapshot.objectIDs
            guard let k = rest.firstIndex(where: { $0.data === source.data }) else {
                for d in 0..<UInt32(ids.count) where source.isLive(d) { deletedSince.append(ids[Int(d)]) }
                continue
            }
            let now = rest.remove(at: k)
            for d in now.live?.deletedSince(source.live) ?? [] { deletedSince.append(ids[Int(d)]) }
        }
        let segment = merged.segment.deleting(deletedSince.compactMap { merged.segment.liveDocument($0) })
        if segment.liveCount > 0 || rest.isEmpty { rest.append(segment) }
        return EmbeddedIndex(name: name, settings: settings, configuredSettings: configuredSettings, segments: rest)
    }
}

/// Segments to merge into one, as they were when the merge was planned.
public struct SegmentMerge: Sendable {
    let sources: [Segment]

    /// The live documents it rebuilds.
    public var documentCount: Int { sources.reduce(0) { $0 + $1.liveCount } }
}

/// A merge's new segment, not yet in the index.
public struct MergedSegment: Sendable {
    let sources: [Segment]
    let segment: Segment
}
