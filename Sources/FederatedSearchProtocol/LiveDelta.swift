import FederatedSearchCore

/// One page of a subscription's answer as a client holds it: the hits in order, and every
/// other field of the answer (counts, facets, facet stats) but those that change with every
/// run (``LivePage/volatileFields``).
///
/// For an index it is the `results` object of its `results` frame; for the merged list, the
/// `merged` frame without `id` and `type`.
public struct LivePage: Equatable, Sendable {
    public var hits: [JSONObject]
    public var fields: JSONObject

    /// Fields left out: timings, which differ on every run of the same search.
    public static let volatileFields: Set<String> = ["processingTimeMS", "processingTimingsMS", "serverTimeMS"]

    public init(hits: [JSONObject], fields: JSONObject) {
        self.hits = hits
        self.fields = fields
    }

    /// The page of an answer object (see the type's description).
    public init(answer: JSONObject) {
        var hits: [JSONObject] = []
        var fields = JSONObject()
        for e in answer {
            if e.key == "hits", case .array(let a) = e.value {
                hits = a.map { $0.objectValue ?? [:] }
            } else if !Self.volatileFields.contains(e.key) {
                fields.appendUnchecked(e.key, e.value)
            }
        }
        self.hits = hits
        self.fields = fields
    }

    /// Whether `other` holds the same answer: the same hits in order, and the same fields
    /// whatever their order (a facet's values too), as an applied delta may order them.
    public func sameAnswer(as other: LivePage) -> Bool {
        hits == other.hits && Self.sameMembers(fields, other.fields, inFacets: false)
    }

    private static func sameMembers(_ a: JSONObject, _ b: JSONObject, inFacets: Bool) -> Bool {
        guard a.count == b.count, Set(a.keys) == Set(b.keys) else { return false }
        return a.allSatisfy { e in
            if inFacets || e.key == "facets", case .object(let x) = e.value, case .object(let y)? = b[e.key] {
                return sameMembers(x, y, inFacets: true)
            }
            return b[e.key] == e.value
        }
    }

    /// The answer object again: `hits` first, then the other fields.
    public var answer: JSONObject {
        var o = JSONObject()
        o.appendUnchecked("hits", .array(hits.map(JSONValue.object)))
        for e in fields { o.appendUnchecked(e.key, e.value) }
        return o
    }
}

/// What changed between two pages of one subscription, by position, so a client applies it
/// with no knowledge of how hits are identified:
///
/// - `removed`: positions in the old page of hits that are gone;
/// - `moved`: hits still there at another position (`from` in the old page, `to` in the new);
///   a hit neither removed nor moved keeps its position;
/// - `added`: new hits and their positions in the new page;
/// - `changed`: hits still there whose attributes or highlights changed, whole, at their new
///   positions;
/// - `set` / `unset`: fields with a new value (whole: `nbHits`, `nbPages`, `facets_stats`...),
///   fields gone;
/// - `facets`: each facet whose counts changed, its whole new counts (null when it is gone).
public struct LiveDelta: Equatable, Sendable {
    /// A hit at a position of the new page.
    public struct Placed: Equatable, Sendable {
        public var position: Int
        public var hit: JSONObject
        public init(position: Int, hit: JSONObject) {
            self.position = position
            self.hit = hit
        }
    }

    /// A hit that kept its place in the answer but not its position.
    public struct Move: Equatable, Sendable {
        public var from: Int
        public var to: Int
        public init(from: Int, to: Int) {
            self.from = from
            self.to = to
        }
    }

    public var removed: [Int] = []
    public var moved: [Move] = []
    public var added: [Placed] = []
    public var changed: [Placed] = []
    public var set = JSONObject()
    public var unset: [String] = []
    public var facets = JSONObject()

    public init() {}

    /// Nothing changed.
    public var isEmpty: Bool {
        removed.isEmpty && moved.isEmpty && added.isEmpty && changed.isEmpty && set.isEmpty && unset.isEmpty && facets.isEmpty
    }

    /// The hits the delta names: when more than the new page holds, the page itself is the
    /// smaller message (a `resync`).
    public var hitCount: Int { removed.count + moved.count + added.count + changed.count }

    /// The delta from `old` to `new`; nil when hits cannot be told apart (two with the same
    /// identity in one page): the client then needs the whole page.
    ///
    /// A hit's identity is its `objectID` and, in a merged list, its source index
    /// (`_federation.index`), as two indices may hold the same objectID.
    public static func between(_ old: LivePage, _ new: LivePage) -> LiveDelta? {
        guard let before = positions(old.hits), let after = positions(new.hits) else { return nil }
        var delta = LiveDelta()
        for (i, hit) in old.hits.enumerated() where after[identity(hit)!] == nil { delta.removed.append(i) }
        for (j, hit) in new.hits.enumerated() {
            guard let i = before[identity(hit)!] else {
                delta.added.append(Placed(position: j, hit: hit))
                continue
            }
            if i != j { delta.moved.append(Move(from: i, to: j)) }
            if old.hits[i] != hit { delta.changed.append(Placed(position: j, hit: hit)) }
        }
        let oldFacets = old.fields["facets"]?.objectValue
        let newFacets = new.fields["facets"]?.objectValue
        for e in new.fields where old.fields[e.key] != e.value {
            if e.key == "facets", let oldFacets, let newFacets {
                for f in newFacets where oldFacets[f.key] != f.value { delta.facets.appendUnchecked(f.key, f.value) }
                for f in oldFacets where newFacets[f.key] == nil { delta.facets.appendUnchecked(f.key, .null) }
            } else {
                delta.set.appendUnchecked(e.key, e.value)
            }
        }
        delta.unset = old.fields.keys.filter { new.fields[$0] == nil }
        return delta
    }

    /// `old` with the delta applied; throws `invalid_field` if the delta does not fit the page
    /// (a position out of range, or two hits at one position): the client then asks again.
    public func applied(to old: LivePage) throws(SearchError) -> LivePage {
        let count = old.hits.count - removed.count + added.count
        guard count >= 0 else { throw Self.misfit("more hits removed than the page holds") }
        var slots = [JSONObject?](repeating: nil, count: count)
        let gone = Set(removed)
        var movedTo: [Int: Int] = [:]
        for m in moved { movedTo[m.from] = m.to }
        for (i, hit) in old.hits.enumerated() where !gone.contains(i) {
            let to = movedTo[i] ?? i
            guard slots.indices.contains(to), slots[to] == nil else { throw Self.misfit("hit \(i) has no free position \(to)") }
            slots[to] = hit
        }
        for a in added {
            guard slots.indices.contains(a.position), slots[a.position] == nil else {
                throw Self.misfit("added hit at taken position \(a.position)")
            }
            slots[a.position] = a.hit
        }
        for c in changed {
            guard slots.indices.contains(c.position), slots[c.position] != nil else {
                throw Self.misfit("changed hit at empty position \(c.position)")
            }
            slots[c.position] = c.hit
        }
        var page = LivePage(hits: [], fields: old.fields)
        for (i, slot) in slots.enumerated() {
            guard let slot else { throw Self.misfit("position \(i) left empty") }
            page.hits.append(slot)
        }
        for e in set { page.fields[e.key] = e.value }
        if !facets.isEmpty {
            var all = page.fields["facets"]?.objectValue ?? [:]
            for f in facets {
                if f.value == .null { all = JSONObject(all.entries.filter { $0.key != f.key }) } else { all[f.key] = f.value }
            }
            page.fields["facets"] = .object(all)
        }
        if !unset.isEmpty { page.fields = JSONObject(page.fields.entries.filter { !unset.contains($0.key) }) }
        return page
    }

    /// The delta's members in an `update` frame (only those with something in them).
    public var json: JSONObject {
        var o = JSONObject()
        if !removed.isEmpty { o.appendUnchecked("removed", .array(removed.map { .number(Double($0)) })) }
        if !moved.isEmpty {
            o.appendUnchecked(
                "moved", .array(moved.map { ["from": .number(Double($0.from)), "to": .number(Double($0.to))] }))
        }
        if !added.isEmpty { o.appendUnchecked("added", .array(added.map(Self.json))) }
        if !changed.isEmpty { o.appendUnchecked("changed", .array(changed.map(Self.json))) }
        if !set.isEmpty { o.appendUnchecked("set", .object(set)) }
        if !unset.isEmpty { o.appendUnchecked("unset", .array(unset.map(JSONValue.string))) }
        if !facets.isEmpty { o.appendUnchecked("facets", .object(facets)) }
        return o
    }

    /// The delta of an `update` frame's members (the client's side).
    public init(json o: JSONObject) throws(SearchError) {
        func positions(_ key: String) throws(SearchError) -> [Int] {
            guard let a = o[key] else { return [] }
            guard case .array(let items) = a else { throw SearchError(.invalidField, "\(key): expected an array") }
            var out: [Int] = []
            for v in items {
                guard let n = v.intValue, n >= 0 else { throw SearchError(.invalidField, "\(key): expected positions") }
                out.append(n)
            }
            return out
        }
        func placed(_ key: String) throws(SearchError) -> [Placed] {
            guard let a = o[key] else { return [] }
            guard case .array(let items) = a else { throw SearchError(.invalidField, "\(key): expected an array") }
            var out: [Placed] = []
            for v in items {
                guard let p = v.objectValue?["position"]?.intValue, p >= 0, let hit = v.objectValue?["hit"]?.objectValue else {
                    throw SearchError(.invalidField, "\(key): expected {position, hit} objects")
                }
                out.append(Placed(position: p, hit: hit))
            }
            return out
        }
        removed = try positions("removed")
        if let a = o["moved"] {
            guard case .array(let items) = a else { throw SearchError(.invalidField, "moved: expected an array") }
            for v in items {
                guard let f = v.objectValue?["from"]?.intValue, let t = v.objectValue?["to"]?.intValue, f >= 0, t >= 0 else {
                    throw SearchError(.invalidField, "moved: expected {from, to} objects")
                }
                moved.append(Move(from: f, to: t))
            }
        }
        added = try placed("added")
        changed = try placed("changed")
        set = o["set"]?.objectValue ?? [:]
        unset = (o["unset"]?.arrayValue ?? []).compactMap(\.stringValue)
        facets = o["facets"]?.objectValue ?? [:]
    }

    private static func json(_ p: Placed) -> JSONValue { ["position": .number(Double(p.position)), "hit": .object(p.hit)] }

    private static func misfit(_ why: String) -> SearchError {
        SearchError(.invalidField, "update: the delta does not fit the page held (\(why)); subscribe again")
    }

    /// Each hit's position by identity; nil if two share one (or one has none).
    private static func positions(_ hits: [JSONObject]) -> [String: Int]? {
        var out: [String: Int] = [:]
        for (i, hit) in hits.enumerated() {
            guard let id = identity(hit), out.updateValue(i, forKey: id) == nil else { return nil }
        }
        return out
    }

    private static func identity(_ hit: JSONObject) -> String? {
        guard let id = hit["objectID"]?.stringValue else { return nil }
        let source = hit["_federation"]?.objectValue?["index"]?.stringValue ?? ""
        return source + "\u{0}" + id
    }
}

/// A subscription's answer as a client holds it: each source's page and the merged list's,
/// kept up to date frame by frame (its first `results` and `merged` frames, then each
/// `update` and `resync`).
public struct LiveAnswer: Sendable {
    /// Each source's page, by the name it answers under.
    public private(set) var pages: [String: LivePage] = [:]
    /// The merged list's page.
    public private(set) var merged: LivePage?
    /// The last `seq` taken.
    public private(set) var seq = 0

    public init() {}

    /// What one frame changed.
    public enum Change: Equatable, Sendable {
        /// A source's page (its name), or the merged list (nil).
        case page(String?)
        /// Nothing held changed (`done`, an error, another request's frame).
        case none
    }

    /// Takes one frame of the subscription, decoded.
    @discardableResult
    public mutating func take(_ frame: Frame) throws(SearchError) -> Change {
        guard case .object(let o) = frame.json() else { return .none }
        return try take(o)
    }

    /// Takes one frame of the subscription as its JSON object. Throws `invalid_field` for an
    /// update that does not fit the page held, or one whose `seq` skips: the client then
    /// subscribes again.
    @discardableResult
    public mutating func take(_ frame: JSONObject) throws(SearchError) -> Change {
        let type = frame["type"]?.stringValue
        if type == "update" || type == "resync" {
            guard let seq = frame["seq"]?.intValue, seq == self.seq + 1 else {
                throw SearchError(
                    .invalidField, "seq: \(frame["seq"].map { "\($0)" } ?? "none") after \(seq): a frame was missed; subscribe again")
            }
            self.seq = seq
        }
        var rest = JSONObject()
        for e in frame where !["id", "type", "seq", "index", "merged"].contains(e.key) { rest.appendUnchecked(e.key, e.value) }
        let isMerged = type == "merged" || frame["merged"] == true
        let name = frame["index"]?.stringValue ?? ""
        switch type {
        case "merged",
            "resync" where isMerged:
            merged = LivePage(answer: rest)
        case "results", "resync":
            guard let results = frame["results"]?.objectValue else { throw SearchError(.missingField, "results: missing") }
            pages[name] = LivePage(answer: results)
        case "update" where isMerged:
            guard let held = merged else { throw SearchError(.invalidField, "update: no merged list held") }
            merged = try LiveDelta(json: rest).applied(to: held)
        case "update":
            guard let held = pages[name] else { throw SearchError(.invalidField, "update: no page held for \(name)") }
            pages[name] = try LiveDelta(json: rest).applied(to: held)
        default:
            return .none
        }
        return .page(isMerged ? nil : name)
    }
}
