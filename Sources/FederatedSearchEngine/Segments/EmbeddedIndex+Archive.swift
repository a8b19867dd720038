import FederatedSearchCore

/// Identifies one segment, never another, even after it is gone.
public struct SegmentID: Hashable, Sendable {
    let serial: UInt64
}

/// The documents of a store, as an index opening saved segments matches them: each with its
/// objectID, its position in the index's order (ascending: the store's order) and the hash of
/// its stored form.
public struct StoredDocuments {
    public let documents: [JSONObject]
    public let objectIDs: [String]
    public let positions: [Int64]
    public let hashes: [UInt64]

    public init(documents: [JSONObject], objectIDs: [String], positions: [Int64], hashes: [UInt64]) {
        self.documents = documents
        self.objectIDs = objectIDs
        self.positions = positions
        self.hashes = hashes
    }

    /// The index of the document at `position`, if one is there.
    func index(at position: Int64) -> Int? {
        var lo = 0
        var hi = positions.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if positions[mid] < position { lo = mid + 1 } else { hi = mid }
        }
        return lo < positions.count && positions[lo] == position ? lo : nil
    }
}

/// An index opened from saved segments and the store's documents.
public struct OpenedIndex: Sendable {
    public let index: EmbeddedIndex
    /// Live documents served by each archive, in the order given (0: none of its documents
    /// is still stored as it was, or the archive could not be used).
    public let servedByArchive: [Int]
    /// Why each archive that could not be used was not (by position in the order given).
    public let unusable: [Int: String]
    /// The documents (by index in the stored ones) that no archive held as stored, built into
    /// a segment as it opened.
    public let built: [Int]
    /// The segment made from each archive that serves documents, by position in the order given.
    public let segmentOfArchive: [Int: SegmentID]
}

extension EmbeddedIndex {
    /// Its segments, in order.
    public var segmentIDs: [SegmentID] { segments.map { SegmentID(serial: $0.data.serial) } }

    /// Each segment with the documents it was built with (live or not), in order.
    public var segmentSizes: [(id: SegmentID, builtDocuments: Int)] {
        segments.map { (SegmentID(serial: $0.data.serial), $0.snapshot.documentCount) }
    }

    /// Segment `id` as columns, with `meta` saved beside them, or nil if the index has no
    /// such segment (or it is too large for an archive's 32-bit offsets). `hash` is the hash of a document's stored form, what
    /// ``opening(name:settings:configuredSettings:archives:stored:)`` compares to know the
    /// document unchanged.
    public func archive(of id: SegmentID, meta: JSONObject, hash: (JSONObject) -> UInt64) -> ColumnArchive? {
        guard let s = segments.first(where: { $0.data.serial == id.serial }) else { return nil }
        return SegmentArchive.encode(s, meta: meta, hash: hash)
    }

    /// The `meta` saved with an archive, or nil if it is not a segment archive of this version.
    public static func archiveMeta(_ archive: ColumnArchive) -> JSONObject? { SegmentArchive.meta(archive) }

    /// An index over `stored`, serving each document from a saved segment (`archives`, newest
    /// first) that holds it at the same position with the same objectID and hash, if one does, so that
    /// opening costs about what reading the archives does; the documents no archive holds so
    /// are built into one more segment. A document is live in one segment only: the newest
    /// that holds it as stored. The answers are those of an index built from `stored`: a
    /// saved segment's document numbering depends only on its documents and settings, which
    /// the hashes and `settings` (which the caller checks against the archive's meta) pin.
    public static func opening(
        name: String, settings: IndexSettings, configuredSettings: JSONObject = [:], archives: [ColumnArchive], stored: StoredDocuments
    ) throws(SearchError) -> OpenedIndex {
        var claimed = [Bool](repeating: false, count: stored.documents.count)
        var segments: [Segment] = []
        var served: [Int] = []
        var unusable: [Int: String] = [:]
        var segmentOfArchive: [Int: SegmentID] = [:]
        for (k, archive) in archives.enumerated() {
            let decoded: SegmentArchive.Decoded
            do {
                decoded = try SegmentArchive.decode(archive, settings: settings)
            } catch {
                unusable[k] = error.reason
                served.append(0)
                continue
            }
            var documents = [JSONObject](repeating: [:], count: decoded.count)
            var ids = [String](repeating: "", count: decoded.count)
            var dead: [UInt32] = []
            var live = 0
            for d in 0..<decoded.count {
                if let i = stored.index(at: decoded.positions[d]), !claimed[i], stored.hashes[i] == decoded.hashes[d],
                    decoded.hasObjectID(d, stored.objectIDs[i])
                {
                    claimed[i] = true
                    documents[d] = stored.documents[i]
                    ids[d] = stored.objectIDs[i]
                    live += 1
                } else {
                    ids[d] = decoded.objectID(d)
                    dead.append(UInt32(d))
                }
            }
            served.append(live)
            guard live > 0 else { continue }
            let snapshot = IndexSnapshot(
                settings: settings, documents: documents, objectIDs: ids, positions: decoded.positions, parts: decoded.parts)
            let data = SegmentData(snapshot: snapshot)
            segmentOfArchive[k] = SegmentID(serial: data.serial)
            segments.append(Segment(data: data).deleting(dead))
        }
        let rest = stored.documents.indices.filter { !claimed[$0] }
        if !rest.isEmpty || segments.isEmpty {
            segments.append(
                try segment(
                    name: name, settings: settings, documents: rest.map { stored.documents[$0] },
                    positions: rest.map { stored.positions[$0] }))
        }
        let index = EmbeddedIndex(name: name, settings: settings, configuredSettings: configuredSettings, segments: segments)
        return OpenedIndex(
            index: index, servedByArchive: served, unusable: unusable, built: rest, segmentOfArchive: segmentOfArchive)
    }
}
