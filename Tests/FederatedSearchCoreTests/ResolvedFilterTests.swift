import Testing
@testable import FederatedSearchCore

/// `FilterExpression.resolved(has:)`: conditions on attributes a source lacks match nothing,
/// and the simplified filter is true of exactly the records the original is true of under that
/// reading. Checked on fixed cases and on random expressions against a truth-table evaluation.
struct ResolvedFilterTests {
    let has: (FilterExpression) -> Bool = { !$0.attributes.contains("missing") }

    @Test func conditionsOnMissingAttributesMatchNothing() throws {
        let f = try FilterParser.parse("genres:Drama AND missing:x")
        #expect(f.resolved(has: has) == .nothing)
        #expect(
            try FilterParser.parse("genres:Drama OR missing:x").resolved(has: has) == .filter(.facet(attribute: "genres", value: "Drama")))
        #expect(try FilterParser.parse("NOT missing:x").resolved(has: has) == .everything)
        #expect(
            try FilterParser.parse("genres:Drama AND NOT missing > 3").resolved(has: has)
                == .filter(.facet(attribute: "genres", value: "Drama")))
        #expect(try FilterParser.parse("year > 3").resolved(has: has) == .filter(.numeric(attribute: "year", op: .greaterThan, value: 3)))
    }

    @Test func renamingKeepsTagsAndValues() throws {
        let f = try FilterParser.parse("genre:Drama AND _tags:new AND NOT price:1 TO 2")
        #expect(
            f.renamingAttributes { $0 == "genre" ? "category" : $0 }
                == (try FilterParser.parse("category:Drama AND _tags:new AND NOT price:1 TO 2")))
    }

    /// Random expressions over leaves `a0..a3` (present) and `missing`: the resolved filter,
    /// evaluated on every assignment of the present leaves, equals the original evaluated with
    /// the missing leaves false.
    @Test func resolvedAgreesWithTheOriginalOnEveryAssignment() {
        var state: UInt64 = 7
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        func random(_ depth: Int) -> FilterExpression {
            let pick = depth == 0 ? next(5) : next(8)
            switch pick {
            case 0...3: return .facet(attribute: "a\(pick)", value: "v")
            case 4: return .facet(attribute: "missing", value: "v")
            case 5: return .and((0..<(1 + next(3))).map { _ in random(depth - 1) })
            case 6: return .or((0..<(1 + next(3))).map { _ in random(depth - 1) })
            default: return .not(random(depth - 1))
            }
        }
        func truth(_ e: FilterExpression, _ bits: Int) -> Bool {
            switch e {
            case .and(let xs): return xs.allSatisfy { truth($0, bits) }
            case .or(let xs): return xs.contains { truth($0, bits) }
            case .not(let x): return !truth(x, bits)
            case .facet(let a, _): return a == "missing" ? false : bits & (1 << Int(a.dropFirst())!) != 0
            default: return false
            }
        }
        for _ in 0..<500 {
            let e = random(4)
            let r = e.resolved(has: has)
            for bits in 0..<16 {
                let expected = truth(e, bits)
                switch r {
                case .everything: #expect(expected, "\(e)")
                case .nothing: #expect(!expected, "\(e)")
                case .filter(let f):
                    #expect(!f.attributes.contains("missing"), "\(e)")
                    #expect(truth(f, bits) == expected, "\(e)")
                }
            }
        }
    }
}
