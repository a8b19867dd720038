import Testing
import FederatedSearchCore
@testable import FederatedSearchProtocol

/// A subscription's deltas: applied to the page the client holds, each gives the new page
/// exactly (hits in order, counts, facets); they survive the wire; hits that cannot be told
/// apart, or a delta that does not fit the page held, are refused rather than misapplied.
struct LiveDeltaTests {
    /// A random page: hits from a small pool of ids (so pages overlap), each with a few
    /// attributes that change now and then, some from a second index; counts and facets.
    static func page(_ rng: inout SystemRandomNumberGenerator) -> LivePage {
        let ids = (0..<12).map { "d\($0)" }.shuffled(using: &rng).prefix(Int.random(in: 0...8, using: &rng))
        let hits: [JSONObject] = ids.map { id in
            var hit: JSONObject = ["objectID": .string(id), "title": .string(["a", "b"].randomElement(using: &rng)!)]
            if Bool.random(using: &rng) { hit["_federation"] = ["index": .string(["films", "classics"].randomElement(using: &rng)!)] }
            return hit
        }
        var fields: JSONObject = ["nbHits": .number(Double(Int.random(in: 0...50, using: &rng))), "page": 0]
        if Bool.random(using: &rng) { fields["nbPages"] = .number(Double(Int.random(in: 0...5, using: &rng))) }
        var facets = JSONObject()
        for attribute in ["genre", "year"] where Bool.random(using: &rng) {
            var counts = JSONObject()
            for value in ["x", "y", "z"] where Bool.random(using: &rng) {
                counts[value] = .number(Double(Int.random(in: 1...3, using: &rng)))
            }
            facets[attribute] = .object(counts)
        }
        if Bool.random(using: &rng) { fields["facets"] = .object(facets) }
        if Bool.random(using: &rng) { fields["facets_stats"] = ["year": ["min": .number(Double(Int.random(in: 1...3, using: &rng)))]] }
        return LivePage(hits: hits, fields: fields)
    }

    @Test func aDeltaAppliedToTheOldPageGivesTheNewOne() throws {
        var rng = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<3000 {
            let old = Self.page(&rng)
            let new = Self.page(&rng)
            guard let delta = LiveDelta.between(old, new) else { continue }  // an id twice: see below
            checked += 1
            let applied = try delta.applied(to: old)
            #expect(applied.hits == new.hits, "\(old.hits) → \(new.hits) by \(delta)")
            #expect(applied.sameAnswer(as: new), "\(old.fields) → \(new.fields) by \(delta)")
            #expect(delta.isEmpty == old.sameAnswer(as: new))
            // What goes over the wire comes back as the same delta.
            #expect(try LiveDelta(json: delta.json) == delta)
        }
        #expect(checked > 2000)
    }

    @Test func theSamePageIsNoChangeAndTimingsAreNotChanges() {
        var rng = SystemRandomNumberGenerator()
        let p = Self.page(&rng)
        #expect(LiveDelta.between(p, p)?.isEmpty == true)
        let a = LivePage(answer: ["hits": [], "nbHits": 3, "processingTimeMS": 1, "processingTimingsMS": ["total": 0.2]])
        let b = LivePage(answer: ["hits": [], "nbHits": 3, "processingTimeMS": 4, "processingTimingsMS": ["total": 3.9]])
        #expect(LiveDelta.between(a, b)?.isEmpty == true)
        #expect(a.answer["hits"] == .array([]) && a.answer["nbHits"] == 3)
    }

    @Test func hitsThatCannotBeToldApartAskForTheWholePage() {
        let twice = LivePage(hits: [["objectID": "a"], ["objectID": "a"]], fields: [:])
        let once = LivePage(hits: [["objectID": "a"]], fields: [:])
        #expect(LiveDelta.between(twice, once) == nil)
        #expect(LiveDelta.between(once, twice) == nil)
        // The same objectID from two indices of a merged list is two hits.
        let merged = LivePage(
            hits: [["objectID": "a", "_federation": ["index": "films"]], ["objectID": "a", "_federation": ["index": "classics"]]],
            fields: [:])
        #expect(LiveDelta.between(once, merged) != nil)
    }

    @Test func aDeltaThatDoesNotFitThePageIsRefused() {
        let page = LivePage(hits: [["objectID": "a"], ["objectID": "b"]], fields: [:])
        var delta = LiveDelta()
        delta.moved = [LiveDelta.Move(from: 0, to: 1)]
        #expect(throws: SearchError.self) { try delta.applied(to: page) }
        delta = LiveDelta()
        delta.removed = [0, 1, 2]
        #expect(throws: SearchError.self) { try delta.applied(to: page) }
        delta = LiveDelta()
        delta.added = [LiveDelta.Placed(position: 5, hit: ["objectID": "c"])]
        #expect(throws: SearchError.self) { try delta.applied(to: page) }
        #expect(throws: SearchError.self) { try LiveDelta(json: ["removed": ["x"]]) }
    }
}
