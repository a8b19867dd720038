import Testing
import FederatedSearchCore
@testable import FederatedSearchFederation

/// A source named `name` whose hits are `prefix-rank` with the given scores.
func source(
    _ name: String, _ position: Int, _ scores: [Double], weight: Double = 1, keys: [JSONValue]? = nil, ids: [String]? = nil
) -> SourceHits {
    SourceHits(
        name: name, position: position, weight: weight,
        hits: scores.enumerated().map { rank, score in
            var attributes = JSONObject()
            if let keys { attributes["sku"] = keys[rank] }
            return Hit(objectID: ids?[rank] ?? "\(name)\(rank)", attributes: attributes, rankingScore: score)
        })
}

func ids(_ entries: [MergedEntry]) -> [String] { entries.map(\.hit.objectID) }

/// Each strategy, ties, quotas and distinct, on small hand-checked cases.
struct FederatedMergeTests {
    @Test func comparatorOrdersByScoreThenRequestOrderThenRank() {
        let hit = Hit(objectID: "x", attributes: JSONObject(), rankingScore: 0)
        let a = MergedEntry(name: "a", sourcePosition: 1, rank: 3, weightedScore: 0.5, hit: hit)
        var b = a
        b.weightedScore = 0.4
        #expect(FederatedMerge.precedes(a, b) && !FederatedMerge.precedes(b, a))
        b.weightedScore = 0.5
        b.sourcePosition = 0
        #expect(FederatedMerge.precedes(b, a) && !FederatedMerge.precedes(a, b))
        b.sourcePosition = 1
        b.rank = 4
        #expect(FederatedMerge.precedes(a, b) && !FederatedMerge.precedes(b, a))
        #expect(!FederatedMerge.precedes(a, a))
    }

    @Test func comparatorAgreesWithScoreMerge() {
        var g = MergeGenerator(rng: SplitMix64(seed: 7))
        let hit = Hit(objectID: "x", attributes: JSONObject(), rankingScore: 0)
        for _ in 0..<500 {
            let (s1, s2, p1, p2, r1, r2) = (g.int(0...2), g.int(0...2), g.int(0...2), g.int(0...2), g.int(0...2), g.int(0...2))
            let a = MergedEntry(name: "", sourcePosition: p1, rank: r1, weightedScore: Double(s1), hit: hit)
            let b = MergedEntry(name: "", sourcePosition: p2, rank: r2, weightedScore: Double(s2), hit: hit)
            let ra = RankedHit(sourcePosition: p1, rank: r1, score: Double(s1), hit: hit)
            let rb = RankedHit(sourcePosition: p2, rank: r2, score: Double(s2), hit: hit)
            #expect(FederatedMerge.precedes(a, b) == ScoreMerge.precedes(ra, rb))
        }
    }

    @Test func scoreMergesByWeightedScoreWithRequestOrderTies() {
        let sources = [source("b", 1, [0.75, 0.3]), source("a", 0, [0.375, 0.2], weight: 2)]
        let merged = FederatedMerge.merge(sources, options: MergeOptions(limit: 10))
        // a: 0.75, 0.4; b: 0.75, 0.3. The tie at 0.75 goes to a, first in the request.
        #expect(ids(merged) == ["a0", "b0", "a1", "b1"])
        #expect(merged.map(\.weightedScore) == [0.75, 0.75, 0.4, 0.3])
        #expect(merged.map(\.name) == ["a", "b", "a", "b"])
        #expect(merged.map(\.rank) == [0, 0, 1, 1])
        #expect(merged.map(\.sourcePosition) == [0, 1, 0, 1])
    }

    @Test func scoreKeepsASourcesOwnOrder() {
        let merged = FederatedMerge.merge([source("a", 0, [0.5, 0.9]), source("b", 1, [0.7])], options: MergeOptions())
        #expect(ids(merged) == ["b0", "a0", "a1"])
    }

    @Test func interleaveTakesRankByRankInRequestOrder() {
        let sources = [source("b", 1, [0.1, 0.1, 0.1]), source("a", 0, [0.9]), source("c", 2, [0.5, 0.5])]
        let merged = FederatedMerge.merge(sources, options: MergeOptions(strategy: .interleave))
        #expect(ids(merged) == ["a0", "b0", "c0", "b1", "c1", "b2"])
        #expect(merged[0].weightedScore == 0.9)
    }

    @Test func rrfSumsReciprocalRanksOfTheSameDocument() {
        let sources = [
            source("a", 0, [1, 1, 1], ids: ["x", "y", "z"]),
            source("b", 1, [1, 1], weight: 2, ids: ["z", "w"]),
        ]
        let merged = FederatedMerge.merge(sources, options: MergeOptions(strategy: .rrf, k: 1))
        // x 1/2, y 1/3, z 1/4 + 2/2, w 2/3.
        #expect(ids(merged) == ["z", "w", "x", "y"])
        #expect(merged[0].weightedScore == 1.0 / 4 + 2.0 / 2)
        // z is represented by its larger contribution: b at rank 0.
        #expect(merged[0].name == "b" && merged[0].rank == 0)
    }

    @Test func rrfFusesByDistinctKeyAndCountsOnlyTheFirstOccurrenceInASource() {
        let sources = [
            source("a", 0, [1, 1, 1], keys: ["p1", "p1", "p2"]),
            source("b", 1, [1], keys: ["p2"]),
        ]
        let merged = FederatedMerge.merge(sources, options: MergeOptions(strategy: .rrf, k: 0, distinctKey: "sku"))
        // p1: 1/1 (the repeat at rank 1 is ignored); p2: 1/3 + 1/1.
        #expect(ids(merged) == ["b0", "a0"])
        #expect(merged.map(\.weightedScore) == [1.0 / 3 + 1, 1])
    }

    @Test func rrfTiesGoToTheEarlierSource() {
        let merged = FederatedMerge.merge(
            [source("a", 1, [0.1]), source("b", 0, [0.9])], options: MergeOptions(strategy: .rrf))
        #expect(ids(merged) == ["b0", "a0"])
        #expect(merged[0].weightedScore == 1.0 / 61)
    }

    @Test func groupedAndZeroLimitMergeNothing() {
        let sources = [source("a", 0, [0.5])]
        #expect(FederatedMerge.merge(sources, options: MergeOptions(strategy: .grouped)).isEmpty)
        #expect(FederatedMerge.merge(sources, options: MergeOptions(limit: 0)).isEmpty)
        #expect(FederatedMerge.merge([], options: MergeOptions()).isEmpty)
        #expect(FederatedMerge.merge(sources, options: MergeOptions(offset: 1)).isEmpty)
    }

    @Test func pagesOfADominantIndexHaveNoHoleAndNoDuplicate() {
        let big = source("big", 0, (0..<30).map { 1 - Double($0) / 100 })
        let small = source("small", 1, [0.5, 0.1])
        var seen: [String] = []
        for page in 0..<4 {
            let options = MergeOptions(offset: 10 * page, limit: 10)
            seen += ids(FederatedMerge.merge(truncated([big, small], to: options.fetchDepth), options: options))
        }
        #expect(seen == (0..<30).map { "big\($0)" } + ["small0", "small1"])
    }

    @Test func maxPerIndexSkipsASourcesLaterHits() {
        let sources = [source("a", 0, [0.9, 0.8, 0.7]), source("b", 1, [0.6, 0.5])]
        let options = MergeOptions(maxPerIndex: IndexQuota(byName: ["a": 1]))
        #expect(ids(FederatedMerge.merge(sources, options: options)) == ["a0", "b0", "b1"])
        let everyIndex = MergeOptions(maxPerIndex: IndexQuota(all: 1))
        #expect(ids(FederatedMerge.merge(sources, options: everyIndex)) == ["a0", "b0"])
        let zero = MergeOptions(maxPerIndex: IndexQuota(all: 2, byName: ["b": 0]))
        #expect(ids(FederatedMerge.merge(sources, options: zero)) == ["a0", "a1"])
    }

    @Test func minPerIndexPromotesIntoTheLatestPositionsOfTheFirstPage() {
        let a = source("a", 0, [0.9, 0.8, 0.7, 0.6, 0.5])
        let b = source("b", 1, [0.2, 0.1, 0.05])
        let options = MergeOptions(limit: 3, minPerIndex: IndexQuota(byName: ["b": 2]))
        #expect(ids(FederatedMerge.merge([a, b], options: options)) == ["a0", "b0", "b1"])
        var page2 = options
        page2.offset = 3
        // The hits that made room open page 2; the promoted ones do not repeat.
        #expect(ids(FederatedMerge.merge([a, b], options: page2)) == ["a1", "a2", "a3"])
        page2.offset = 6
        #expect(ids(FederatedMerge.merge([a, b], options: page2)) == ["a4", "b2"])
    }

    @Test func minPerIndexTakesOnlyWhatASourceHasAndServesRequestOrderFirst() {
        let a = source("a", 0, [0.9, 0.8, 0.7, 0.6])
        let b = source("b", 1, [0.2])
        let c = source("c", 2, [0.3, 0.25])
        // Quotas of 5 in a window of 3: a comes first in the request and its quota fills it.
        let all = MergeOptions(limit: 3, minPerIndex: IndexQuota(all: 5))
        #expect(ids(FederatedMerge.merge([a, b, c], options: all)) == ["a0", "a1", "a2"])
        // b has one hit only: it gets that one; c gets two, a keeps the rest of the window.
        let some = MergeOptions(limit: 4, minPerIndex: IndexQuota(byName: ["b": 3, "c": 2]))
        #expect(ids(FederatedMerge.merge([a, b, c], options: some)) == ["a0", "c0", "c1", "b0"])
    }

    @Test func minPerIndexDoesNotDemoteHitsAnotherQuotaNeeds() {
        let a = source("a", 0, [0.9, 0.8])
        let b = source("b", 1, [0.85, 0.7])
        let c = source("c", 2, [0.1])
        let options = MergeOptions(limit: 3, minPerIndex: IndexQuota(byName: ["b": 1, "c": 1]))
        // Window a0 b0 a1: b's only window hit stays, a1 makes room for c0.
        #expect(ids(FederatedMerge.merge([a, b, c], options: options)) == ["a0", "b0", "c0"])
        var next = options
        next.offset = 3
        #expect(ids(FederatedMerge.merge([a, b, c], options: next)) == ["a1", "b1"])
    }

    @Test func distinctKeyDropsLaterOccurrences() {
        let sources = [
            source("a", 0, [0.9, 0.5], keys: ["p1", "p2"]),
            source("b", 1, [0.8, 0.7, 0.6], keys: ["p1", .null, "p2"]),
        ]
        let merged = FederatedMerge.merge(sources, options: MergeOptions(distinctKey: "sku"))
        #expect(ids(merged) == ["a0", "b1", "b2"])
    }

    @Test func distinctValuesCompareAsJSON() {
        let sources = [source("a", 0, [0.9, 0.8, 0.7, 0.6], keys: [1, "1", [1, 2], [1, 2]])]
        #expect(ids(FederatedMerge.merge(sources, options: MergeOptions(distinctKey: "sku"))) == ["a0", "a1", "a2"])
        let byID = [source("a", 0, [0.9], ids: ["x"]), source("b", 1, [0.8, 0.7], ids: ["x", "y"])]
        #expect(ids(FederatedMerge.merge(byID, options: MergeOptions(distinctKey: "objectID"))) == ["x", "y"])
        #expect(FederatedMerge.merge(byID, options: MergeOptions(distinctKey: "objectID"))[1].name == "b")
    }

    @Test func aDroppedDuplicateDoesNotCountAgainstTheCap() {
        let sources = [
            source("a", 0, [0.9], keys: ["p1"]),
            source("b", 1, [0.8, 0.7], keys: ["p1", "p2"]),
        ]
        let options = MergeOptions(maxPerIndex: IndexQuota(byName: ["b": 1]), distinctKey: "sku")
        #expect(ids(FederatedMerge.merge(sources, options: options)) == ["a0", "b1"])
    }
}
