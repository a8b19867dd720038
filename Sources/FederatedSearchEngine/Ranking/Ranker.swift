import FederatedSearchCore
import Foundation

/// What the ranking rules measured for one hit (reported in `_rankingInfo`).
struct HitMeasures {
    var typos = 0
    var matchedWords = 0
    var proximity = 0
    /// Priority of the best attribute matched, and the word position there.
    var attributePriority = 0
    var attributePosition = 0
    var firstMatchedWord = 0
    var exactWords = 0
    var bm25 = 0.0
    var geoDistance: Double?
}

/// Computes ranking keys and measures of candidate documents for one query.
struct Ranker {
    let index: IndexSnapshot
    let words: [WordMatches]
    let layout: RankingLayout
    let center: GeoPoint?
    /// Per word: BM25 inverse document frequency.
    let idf: [Double]
    /// Per word: more than its BM25 contribution can ever be (idf × (k1 + 1): the term
    /// frequency part stays below k1 + 1 and match weights are at most 1).
    let bm25Ceiling: [Double]
    /// Average words per document in each attribute slot, over the whole corpus.
    private let averageFieldLength: [Double]
    private let sorts: [(ordinals: [UInt32], shift: Int)]
    private let attributeKeys: [UInt32]
    private let customOrdinal: [UInt32]
    private let positionStart: [UInt32]
    private let positions: [UInt32]
    private let typoShift, geoShift, wordsShift, proximityShift, attributeShift, exactShift, customShift, bm25Shift: Int

    /// Largest proximity a pair of words contributes (also for words in different attributes).
    static let maxPairDistance = 8

    init(index: IndexSnapshot, words: [WordMatches], layout: RankingLayout, center: GeoPoint?, stats: CorpusStats) {
        self.index = index
        self.words = words
        self.layout = layout
        self.center = center
        let n = Double(max(stats.documentCount, 1))
        idf = stats.wordFrequency.map { f in
            let df = Double(min(f, stats.documentCount))
            return log(1 + (n - df + 0.5) / (df + 0.5))
        }
        averageFieldLength = stats.averageFieldLength
        bm25Ceiling = idf.map { $0 * (index.settings.bm25K1 + 1) }
        sorts = layout.fields.compactMap { f in
            if case .sort(let rule) = f.field, let o = index.sortOrdinals[rule] { return (o, f.shift) }
            return nil
        }
        attributeKeys = index.text.postings.attributeKey
        customOrdinal = index.customOrdinal
        positionStart = index.text.postings.positionStart
        positions = index.text.postings.positions
        typoShift = layout.shift(.typo)
        geoShift = layout.shift(.geo)
        wordsShift = layout.shift(.words)
        proximityShift = layout.shift(.proximity)
        attributeShift = layout.shift(.attribute)
        exactShift = layout.shift(.exact)
        customShift = layout.shift(.custom)
        bm25Shift = layout.shift(.bm25)
    }

    /// The ranking key of the document `doc` whose word hits are `hits[base..<base + words.count]`.
    @inline(__always)
    func key(doc: UInt32, hits: [UInt32], base: Int) -> UInt128 {
        compose(doc: doc, hits: hits, base: base, bounding: false)
    }

    /// A lower bound of ``key(doc:hits:base:)`` that reads no positions: proximity at its
    /// least (one per pair of matched words), BM25 at the ceiling of the matched words
    /// (MaxScore), geo distance zero; every other component exact. A document whose bound is not below the k-th best key so far
    /// cannot enter the top k.
    @inline(__always)
    func bound(doc: UInt32, hits: [UInt32], base: Int) -> UInt128 {
        compose(doc: doc, hits: hits, base: base, bounding: true)
    }

    @inline(__always)
    private func compose(doc: UInt32, hits: [UInt32], base: Int, bounding: Bool) -> UInt128 {
        let w = words.count
        var key = UInt128(doc)
        if w > 0 {
            var typos = 0
            var matched = 0
            var nonExact = 0
            var attribute = UInt32.max
            for i in 0..<w {
                let h = hits[base &+ i]
                if h == .max { continue }
                matched += 1
                let flags = h >> MatchFlags.shift
                typos += MatchFlags.typos(flags)
                nonExact += Int(flags & 1)
                let a = attributeKeys[Int(h & MatchFlags.postingMask)]
                if a < attribute { attribute = a }
            }
            nonExact += w - matched
            if typoShift >= 0 { key |= UInt128(min(typos, 127)) << typoShift }
            if wordsShift >= 0 { key |= UInt128(w - matched) << wordsShift }
            if attributeShift >= 0 { key |= UInt128(attribute) << attributeShift }
            if exactShift >= 0 { key |= UInt128(min(nonExact, 63)) << exactShift }
            if proximityShift >= 0 {
                let p = bounding ? max(matched - 1, 0) : proximity(hits, base: base)
                key |= UInt128(min(p, 255)) << proximityShift
            }
            if bm25Shift >= 0 {
                let q: UInt32
                if bounding {  // the best score the matched words could reach, rounded up
                    var ceiling = 0.0
                    for i in 0..<w where hits[base &+ i] != .max { ceiling += bm25Ceiling[i] }
                    q = Self.quantized((ceiling * 4096).rounded(.up), limit: (1 << 20) - 1)
                } else {
                    q = Self.quantized(bm25(doc: doc, hits: hits, base: base) * 4096, limit: (1 << 20) - 1)
                }
                key |= UInt128((1 << 20) - 1 - q) << bm25Shift
            }
        }
        if geoShift >= 0 && !bounding {
            let units = geoDistance(doc).map { Self.quantized($0 / 10, limit: (1 << 20) - 1) } ?? (1 << 20) - 1
            key |= UInt128(units) << geoShift
        }
        if customShift >= 0 { key |= UInt128(min(customOrdinal[Int(doc)], (1 << 22) - 1)) << customShift }
        for s in sorts { key |= UInt128(min(s.ordinals[Int(doc)], (1 << 22) - 1)) << s.shift }
        return key
    }

    /// The least key any document could have, document bits zero: each word matched with its
    /// best flags, words adjacent, everything else at its best. Once the k-th best key has
    /// these components, no later document (higher id) can enter the top k.
    /// `flags` holds, per word, the best flags it can have in the documents considered.
    static func bestPrefix(flags: [UInt32], requiredCount: Int, layout: RankingLayout) -> UInt128 {
        let w = flags.count
        guard w > 0 else { return 0 }
        let allRequired = requiredCount == w
        var typos = 0
        var nonExact = 0
        for f in flags {
            if allRequired { typos += MatchFlags.typos(f) }
            nonExact += Int(f & 1)
        }
        var key: UInt128 = 0
        let typoShift = layout.shift(.typo)
        let exactShift = layout.shift(.exact)
        let proximityShift = layout.shift(.proximity)
        if typoShift >= 0 { key |= UInt128(min(typos, 127)) << typoShift }
        if exactShift >= 0 { key |= UInt128(min(nonExact, 63)) << exactShift }
        if proximityShift >= 0 && allRequired { key |= UInt128(min(w - 1, 255)) << proximityShift }
        return key
    }

    /// Sum over consecutive matched words of their smallest distance (capped at 8 a pair).
    func proximity(_ hits: [UInt32], base: Int) -> Int {
        var total = 0
        var previous = UInt32.max
        for i in 0..<words.count {
            let h = hits[base &+ i]
            if h == .max { continue }
            if previous != .max {
                total += pairDistance(Int(previous & MatchFlags.postingMask), Int(h & MatchFlags.postingMask))
            }
            previous = h
        }
        return total
    }

    /// The smallest distance between two postings' positions in the same attribute; a word
    /// after the other counts its gap, before it one more.
    func pairDistance(_ a: Int, _ b: Int) -> Int {
        var i = Int(positionStart[a])
        var j = Int(positionStart[b])
        let iEnd = Int(positionStart[a + 1])
        let jEnd = Int(positionStart[b + 1])
        var best = Self.maxPairDistance
        while i < iEnd && j < jEnd {
            let x = positions[i]
            let y = positions[j]
            if PostingStore.slot(x) == PostingStore.slot(y) {
                let d = y > x ? Int(y - x) : Int(x - y) + 1
                if d < best {
                    best = d
                    if d == 1 { return 1 }
                }
            }
            if x < y { i += 1 } else { j += 1 }
        }
        return best
    }

    /// BM25F over the matched words. A word's term frequency sums every term it matched in
    /// the document (all inflections of a stemmed word, typo variants, prefix completions),
    /// each occurrence weighted by how its term matched (exact 1, other forms 0.8 / (1 +
    /// typos)) and by its attribute: the attribute's ``TextIndex/slotWeights`` entry over
    /// that attribute's length normalisation (`1 - b + b * length / average length`).
    func bm25(doc: UInt32, hits: [UInt32], base: Int) -> Double {
        let k1 = index.settings.bm25K1
        var score = 0.0
        for i in 0..<words.count {
            let h = hits[base &+ i]
            if h == .max { continue }
            var tf = 0.0
            let spans = words[i].spans
            if spans.isEmpty {
                tf = Self.matchWeight(h >> MatchFlags.shift) * occurrences(Int(h & MatchFlags.postingMask), doc: doc)
            } else {
                // Spans are disjoint and ascending: gallop to the last one starting at or
                // before each of the document's ascending postings.
                let forward = index.text.forward
                let n = spans.count
                var k = 0
                for i in Int(forward.start[Int(doc)])..<Int(forward.start[Int(doc) + 1]) {
                    let p = forward.postings[i]
                    if spans[k].lo > p { continue }
                    var a = k + 1
                    var step = 1
                    while a < n && spans[a].lo <= p {
                        k = a
                        a += step
                        step <<= 1
                    }
                    var z = min(a, n)
                    a = k + 1
                    while a < z {
                        let mid = (a + z) >> 1
                        if spans[mid].lo <= p {
                            k = mid
                            a = mid + 1
                        } else {
                            z = mid
                        }
                    }
                    if p < spans[k].hi {
                        tf += Self.matchWeight(spans[k].flags) * occurrences(Int(p), doc: doc)
                    } else if k == n - 1 {
                        break
                    }
                }
            }
            score += idf[i] * tf * (k1 + 1) / (tf + k1)
        }
        return score
    }

    /// How much an occurrence counts by how its term matched the word.
    static func matchWeight(_ flags: UInt32) -> Double {
        MatchFlags.isExact(flags) ? 1.0 : 0.8 / Double(1 + MatchFlags.typos(flags))
    }

    /// The occurrences of posting `p` in document `doc`, each weighted by its attribute and
    /// normalised by that attribute's length in the document.
    func occurrences(_ p: Int, doc: UInt32) -> Double {
        let text = index.text
        let b = index.settings.bm25B
        let row = Int(doc) * text.slots.count
        var total = 0.0
        for k in Int(positionStart[p])..<Int(positionStart[p + 1]) {
            let slot = Int(PostingStore.slot(positions[k]))
            let length = Double(text.fieldLength[row + slot]) / averageFieldLength[slot]
            total += text.slotWeights[slot] / (1 - b + b * length)
        }
        return total
    }

    /// Metres from the query's centre to the document, if both are known.
    func geoDistance(_ doc: UInt32) -> Double? {
        guard let center, !index.latitudes.isEmpty else { return nil }
        let lat = index.latitudes[Int(doc)]
        let lng = index.longitudes[Int(doc)]
        guard !lat.isNaN else { return nil }
        return Geo.distance(center, GeoPoint(lat: lat, lng: lng))
    }

    /// Everything the rules measured for one document (for the page's hits only).
    func measures(doc: UInt32, hits: [UInt32], base: Int) -> HitMeasures {
        var m = HitMeasures()
        var attribute = UInt32.max
        for i in 0..<words.count {
            let h = hits[base &+ i]
            if h == .max { continue }
            m.matchedWords += 1
            let flags = h >> MatchFlags.shift
            m.typos += MatchFlags.typos(flags)
            if MatchFlags.isExact(flags) { m.exactWords += 1 }
            attribute = min(attribute, attributeKeys[Int(h & MatchFlags.postingMask)])
        }
        if attribute != .max {
            m.attributePriority = Int(attribute >> 10)
            m.attributePosition = Int(attribute & 1023)
            m.firstMatchedWord = m.attributePriority * 1000 + min(m.attributePosition, 999)
        }
        m.proximity = words.count > 1 ? proximity(hits, base: base) : 0
        m.bm25 = words.isEmpty ? 0 : bm25(doc: doc, hits: hits, base: base)
        m.geoDistance = geoDistance(doc)
        return m
    }

    /// A relevance score in [0, 1], comparable across indices: the share of query words
    /// matched, times a blend of typo, proximity, attribute, exactness and BM25 factors, each
    /// 1 at best. An empty query scores 1 for every document.
    /// `x` as a key field of at most `limit`: 0 for a negative or NaN value (whatever settings
    /// or data produced it, converting one to an integer would trap).
    @inline(__always) static func quantized(_ x: Double, limit: UInt32) -> UInt32 {
        x > 0 ? UInt32(min(x, Double(limit))) : 0
    }

    func score(_ m: HitMeasures) -> Double {
        let w = words.count
        guard w > 0 else { return 1 }
        let wordsFactor = Double(m.matchedWords) / Double(w)
        let typo = 1 / Double(1 + m.typos)
        let proximity = m.matchedWords > 1 ? Double(m.matchedWords - 1) / Double(max(m.proximity, m.matchedWords - 1)) : 1
        let attribute = 1 / (1 + 0.5 * Double(m.attributePriority))
        let exact = Double(m.exactWords) / Double(w)
        let relevance = m.bm25 / (m.bm25 + 3)
        let blend = 0.35 + 0.2 * typo + 0.15 * proximity + 0.1 * attribute + 0.1 * exact + 0.1 * relevance
        return min(1, max(0, wordsFactor * blend))
    }
}

/// Great-circle distances.
enum Geo {
    static let earthRadius = 6_371_000.0

    /// Haversine distance in metres.
    static func distance(_ a: GeoPoint, _ b: GeoPoint) -> Double {
        let toRad = Double.pi / 180
        let dLat = (b.lat - a.lat) * toRad
        let dLng = (b.lng - a.lng) * toRad
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.lat * toRad) * cos(b.lat * toRad) * sin(dLng / 2) * sin(dLng / 2)
        // In [0, 1] for real latitudes; clamped, since documents' latitudes are not checked.
        return 2 * earthRadius * asin(sqrt(min(1, max(0, h))))
    }
}
