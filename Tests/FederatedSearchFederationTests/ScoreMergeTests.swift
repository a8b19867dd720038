import Testing
import FederatedSearchCore
@testable import FederatedSearchFederation

/// The merge orders by score, breaks ties by request order then rank, keeps each source's own
/// order, and stops at the limit.
struct ScoreMergeTests {
    func list(_ source: Int, _ scores: [Double]) -> [RankedHit] {
        scores.enumerated().map {
            RankedHit(
                sourcePosition: source, rank: $0.offset, score: $0.element,
                hit: Hit(objectID: "\(source)-\($0.offset)", attributes: JSONObject(), rankingScore: $0.element))
        }
    }

    @Test func comparatorOrdersByScoreThenSourceThenRank() {
        let a = RankedHit(sourcePosition: 1, rank: 0, score: 0.9, hit: Hit(objectID: "a", attributes: JSONObject(), rankingScore: 0.9))
        var b = a
        b.score = 0.8
        #expect(ScoreMerge.precedes(a, b))
        b.score = 0.9
        b.sourcePosition = 0
        #expect(ScoreMerge.precedes(b, a))
        b.sourcePosition = 1
        b.rank = 1
        #expect(ScoreMerge.precedes(a, b))
        #expect(!ScoreMerge.precedes(a, a))
    }

    @Test func mergesByScoreWithRequestOrderTies() {
        let merged = ScoreMerge.merge([list(0, [0.9, 0.5, 0.5]), list(1, [0.7, 0.5])], limit: 10)
        #expect(merged.map(\.hit.objectID) == ["0-0", "1-0", "0-1", "0-2", "1-1"])
    }

    @Test func respectsTheLimitAndEmptySources() {
        #expect(ScoreMerge.merge([list(0, [0.9, 0.8]), [], list(2, [0.85])], limit: 2).map(\.hit.objectID) == ["0-0", "2-0"])
        #expect(ScoreMerge.merge([], limit: 5).isEmpty)
        #expect(ScoreMerge.merge([list(0, [0.5])], limit: 0).isEmpty)
    }

    @Test func keepsEachSourcesOwnOrderEvenWhenScoresAreNotMonotonic() {
        let merged = ScoreMerge.merge([list(0, [0.5, 0.9]), list(1, [0.6])], limit: 3)
        #expect(merged.map(\.hit.objectID) == ["1-0", "0-0", "0-1"])
    }

    @Test func matchesAReferenceSortOnRandomSortedLists() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let lists = (0..<Int.random(in: 1...4, using: &rng)).map { s in
                list(
                    s,
                    (0..<Int.random(in: 0...8, using: &rng)).map { _ in Double(Int.random(in: 0...4, using: &rng)) / 4 }
                        .sorted(by: >))
            }
            let limit = Int.random(in: 0...20, using: &rng)
            let reference = Array(lists.flatMap { $0 }.sorted(by: ScoreMerge.precedes).prefix(limit))
            #expect(ScoreMerge.merge(lists, limit: limit) == reference)
        }
    }
}
