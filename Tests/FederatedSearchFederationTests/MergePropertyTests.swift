import Testing
import FederatedSearchCore
@testable import FederatedSearchFederation

/// A small seeded generator, so that a failing case can be replayed from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE5_E9B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random federated inputs.
struct MergeGenerator {
    /// How objectIDs and `key` values repeat.
    enum Keys {
        /// Every objectID and key unique across all sources.
        case unique
        /// Drawn from a small shared pool, but unique within each source.
        case sharedAcrossSources
        /// Drawn from a small shared pool with repeats anywhere.
        case anywhere
    }

    var rng: SplitMix64

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }

    mutating func sources(keys: Keys) -> [SourceHits] {
        let count = int(1...4)
        let positions = Array(0..<count).shuffled(using: &rng)
        return (0..<count).map { s in
            let length = int(0...12)
            let scores = (0..<length).map { _ in Double(int(0...4)) / 4 }.sorted(by: >)
            let pool = Array(0..<14).shuffled(using: &rng)
            let hits = scores.enumerated().map { rank, score -> Hit in
                let id: String
                let key: Int
                switch keys {
                case .unique: (id, key) = ("s\(s)-\(rank)", 1000 * s + rank)
                case .sharedAcrossSources: (id, key) = ("d\(pool[rank])", pool[rank])
                case .anywhere: (id, key) = ("s\(s)-\(rank)", int(0...5))
                }
                return Hit(objectID: id, attributes: ["key": .number(Double(key))], rankingScore: score)
            }
            let weight = [0, 0.5, 1, 1, 1, 2][int(0...5)]
            return SourceHits(name: "i\(s)", position: positions[s], weight: weight, hits: hits)
        }
    }

    mutating func quota(_ sources: [SourceHits], maximum: Int) -> IndexQuota {
        switch int(0...3) {
        case 0: return IndexQuota()
        case 1: return IndexQuota(all: int(0...maximum))
        default:
            var byName: [String: Int] = [:]
            for s in sources where int(0...1) == 1 { byName[s.name] = int(0...maximum) }
            return IndexQuota(all: int(0...1) == 1 ? int(0...maximum) : nil, byName: byName)
        }
    }

    mutating func options(
        _ strategy: MergeOptions.Strategy, _ sources: [SourceHits], minimum: Bool, maximum: Bool, distinct: Bool
    ) -> MergeOptions {
        MergeOptions(
            strategy: strategy, offset: int(0...14), limit: int(1...10), k: [0, 1, 60][int(0...2)],
            minPerIndex: minimum ? quota(sources, maximum: 6) : IndexQuota(),
            maxPerIndex: maximum ? quota(sources, maximum: 8) : IndexQuota(),
            distinctKey: distinct ? "key" : nil)
    }
}

func truncated(_ sources: [SourceHits], to depth: Int) -> [SourceHits] {
    sources.map {
        var s = $0
        s.hits = Array(s.hits.prefix(depth))
        return s
    }
}

func slice(_ all: [MergedEntry], _ options: MergeOptions) -> [MergedEntry] {
    Array(all.dropFirst(options.offset).prefix(options.limit))
}

/// Entries as `name/rank:score`, for short failure messages.
func origins(_ entries: [MergedEntry]) -> [String] { entries.map { "\($0.name)/\($0.rank):\($0.weightedScore)" } }

/// Compares two merged lists entry by entry, naming both on failure.
func expectSame(_ a: [MergedEntry], _ b: [MergedEntry], _ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let same = a == b
    #expect(same, "\(context): \(origins(a)) != \(origins(b))", sourceLocation: sourceLocation)
}

/// The pagination property: a page merged from lists truncated to `fetchDepth` equals the
/// page of the reference's full order of the complete lists, and pages concatenate to it.
struct MergePropertyTests {
    static let rounds = 400

    /// Checks one case and that pages of its `limit` concatenate to the full order.
    func check(_ sources: [SourceHits], _ options: MergeOptions, seed: UInt64) {
        let full = MergeReference.fullOrder(sources, options)
        let page = FederatedMerge.merge(truncated(sources, to: options.fetchDepth), options: options)
        expectSame(page, slice(full, options), "seed \(seed), \(options)")
        expectSame(FederatedMerge.merge(sources, options: options), slice(full, options), "seed \(seed), complete lists")
        var pages: [MergedEntry] = []
        var p = options
        p.offset = 0
        while p.offset <= full.count {
            pages += FederatedMerge.merge(truncated(sources, to: p.fetchDepth), options: p)
            p.offset += p.limit
        }
        expectSame(pages, full, "seed \(seed): pages of \(p.limit) against the full order")
        let origins = pages.map { "\($0.sourcePosition)/\($0.rank)" }
        #expect(Set(origins).count == origins.count, "seed \(seed): duplicate across pages")
    }

    @Test(arguments: [MergeOptions.Strategy.score, .interleave, .rrf])
    func truncatedPagesEqualTheReferenceWithQuotas(_ strategy: MergeOptions.Strategy) {
        for seed in 0..<UInt64(Self.rounds) {
            var g = MergeGenerator(rng: SplitMix64(seed: seed))
            let sources = g.sources(keys: .unique)
            check(sources, g.options(strategy, sources, minimum: true, maximum: true, distinct: false), seed: seed)
        }
    }

    @Test(arguments: [MergeOptions.Strategy.score, .interleave])
    func truncatedPagesEqualTheReferenceWithCrossIndexDistinct(_ strategy: MergeOptions.Strategy) {
        for seed in 0..<UInt64(Self.rounds) {
            var g = MergeGenerator(rng: SplitMix64(seed: seed))
            let sources = g.sources(keys: .sharedAcrossSources)
            check(sources, g.options(strategy, sources, minimum: false, maximum: true, distinct: true), seed: seed)
        }
    }

    /// With complete lists the merge is the reference whatever the options.
    @Test(arguments: [MergeOptions.Strategy.score, .interleave, .rrf])
    func completeListsEqualTheReferenceForAnyOptions(_ strategy: MergeOptions.Strategy) {
        for seed in 0..<UInt64(Self.rounds) {
            var g = MergeGenerator(rng: SplitMix64(seed: seed))
            let sources = g.sources(keys: seed % 2 == 0 ? .anywhere : .sharedAcrossSources)
            let options = g.options(strategy, sources, minimum: true, maximum: true, distinct: g.int(0...1) == 1)
            let full = MergeReference.fullOrder(sources, options)
            expectSame(FederatedMerge.merge(sources, options: options), slice(full, options), "seed \(seed), \(options)")
        }
    }

    /// RRF with a document in several sources: truncation loses only contributions from
    /// ranks ≥ fetchDepth, so each fused score is at most Σ weight / (k + fetchDepth + 1)
    /// below its score over complete lists, never above, and no document repeats.
    @Test func rrfWithSharedDocumentsUnderestimatesByABoundedAmount() {
        for seed in 0..<UInt64(Self.rounds) {
            var g = MergeGenerator(rng: SplitMix64(seed: seed))
            let sources = g.sources(keys: .sharedAcrossSources)
            let options = g.options(.rrf, sources, minimum: false, maximum: false, distinct: false)
            let fullScore = Dictionary(
                MergeReference.fullOrder(sources, options).map { ($0.hit.objectID, $0.weightedScore) },
                uniquingKeysWith: { a, _ in a })
            let bound = sources.reduce(0.0) { $0 + $1.weight / Double(options.k + options.fetchDepth + 1) }
            let page = FederatedMerge.merge(truncated(sources, to: options.fetchDepth), options: options)
            #expect(Set(page.map(\.hit.objectID)).count == page.count, "seed \(seed)")
            for e in page {
                let exact = fullScore[e.hit.objectID]!
                #expect(e.weightedScore <= exact + 1e-12 && exact - e.weightedScore <= bound + 1e-12, "seed \(seed)")
            }
        }
    }
}
