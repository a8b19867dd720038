import FederatedSearchCore

extension EmbeddedIndex: Browsable {
    /// Each segment's matches, read in `objectID` order from the segment's sorted order (found
    /// by bisection after the cursor) and merged across segments: a page costs its matching
    /// and `limit` steps per segment, however deep into the index it is.
    public func browse(_ query: SearchQuery, after cursor: String?, limit: Int) throws -> BrowsePage {
        let parts = SegmentedSearch(segments: segments, name: name, query: query).parts()
        defer { for part in parts { part.finish() } }
        try SegmentedSearch.matchOnce(parts, parsed: parts[0].executor.parse())
        var heads: [BrowseHead] = []
        var total = 0
        for part in parts {
            let s = part.segment.snapshot
            var matched = DocumentSet(capacity: s.documentCount)
            for d in part.match.docs.elements { matched.insert(d) }
            total += part.match.docs.count
            var head = BrowseHead(snapshot: s, matched: matched, order: s.objectIDOrder.order(of: s.objectIDs))
            if let cursor { head.skip(through: Array(cursor.utf8)) }
            head.advanceToMatch()
            heads.append(head)
        }
        let unretrievable = Set(settings.unretrievableAttributes)
        var documents: [JSONObject] = []
        while documents.count < limit {
            guard let k = Self.smallest(heads) else { break }
            let (snapshot, d) = (heads[k].snapshot, heads[k].current!)
            var document: JSONObject = ["objectID": .string(snapshot.objectIDs[Int(d)])]
            for e in parts[k].executor.retrieve(snapshot.documents[Int(d)], unretrievable: unretrievable) {
                document.appendUnchecked(e.key, e.value)
            }
            documents.append(document)
            heads[k].position += 1
            heads[k].advanceToMatch()
        }
        return BrowsePage(documents: documents, nbHits: total, hasMore: Self.smallest(heads) != nil)
    }

    /// The segment whose next match has the smallest `objectID` (an id lives in one segment).
    private static func smallest(_ heads: [BrowseHead]) -> Int? {
        var best: Int?
        for (k, h) in heads.enumerated() where h.current != nil {
            if let b = best, !h.currentID.utf8.lexicographicallyPrecedes(heads[b].currentID.utf8) { continue }
            best = k
        }
        return best
    }
}

/// Where a browse stands in one segment: a position in its `objectID` order.
private struct BrowseHead {
    let snapshot: IndexSnapshot
    let matched: DocumentSet
    let order: [UInt32]
    var position = 0

    /// The document at the position (nil: past the end).
    var current: UInt32? { position < order.count ? order[position] : nil }
    var currentID: String { snapshot.objectIDs[Int(order[position])] }

    /// Moves past every document whose `objectID` is at most `cursor`.
    mutating func skip(through cursor: [UInt8]) {
        var lo = 0
        var hi = order.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if cursor.lexicographicallyPrecedes(snapshot.objectIDs[Int(order[mid])].utf8) { hi = mid } else { lo = mid + 1 }
        }
        position = lo
    }

    /// Moves to the next document that matches (from the position itself).
    mutating func advanceToMatch() {
        while position < order.count, !matched.contains(order[position]) { position += 1 }
    }
}
