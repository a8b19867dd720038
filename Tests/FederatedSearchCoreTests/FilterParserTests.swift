import Testing
@testable import FederatedSearchCore

/// Algolia's filter syntax: precedence, ranges, quoting, negation, and an `invalid_filter`
/// error with a position for every malformed input.
struct FilterParserTests {
    @Test func parsesPrecedenceAndGrouping() throws {
        let f = try FilterParser.parse("genres:Drama AND (year >= 2000 OR year = 1999) AND NOT supplier:HP")
        #expect(
            f
                == .and([
                    .facet(attribute: "genres", value: "Drama"),
                    .or([
                        .numeric(attribute: "year", op: .greaterOrEqual, value: 2000),
                        .numeric(attribute: "year", op: .equal, value: 1999),
                    ]),
                    .not(.facet(attribute: "supplier", value: "HP")),
                ]))
        #expect(
            try FilterParser.parse("a:1 OR b:2 AND c:3")
                == .or([
                    .facet(attribute: "a", value: "1"), .and([.facet(attribute: "b", value: "2"), .facet(attribute: "c", value: "3")]),
                ]))
    }

    @Test func parsesRangesQuotesTagsAndBooleans() throws {
        #expect(try FilterParser.parse("year:1990 TO 1999") == .range(attribute: "year", lower: 1990, upper: 1999))
        #expect(try FilterParser.parse(#"title:"Star Wars""#) == .facet(attribute: "title", value: "Star Wars"))
        #expect(try FilterParser.parse(#""my attr":"a \"b\"""#) == .facet(attribute: "my attr", value: #"a "b""#))
        #expect(try FilterParser.parse("_tags:featured") == .tag("featured"))
        #expect(try FilterParser.parse("inStock:true") == .facet(attribute: "inStock", value: "true"))
        #expect(try FilterParser.parse("price < -5.5") == .numeric(attribute: "price", op: .lessThan, value: -5.5))
        #expect(try FilterParser.parse("year:2000.0") == .facet(attribute: "year", value: "2000"))
        #expect(try FilterParser.parse("Amélie:Été") == .facet(attribute: "Amélie", value: "Été"))
    }

    @Test func descriptionParsesBackToTheSameExpression() throws {
        for text in ["a:1 AND (b:x OR NOT c:\"y z\")", "p:1 TO 2", "q != 3", "_tags:\"two words\""] {
            let f = try FilterParser.parse(text)
            #expect(try FilterParser.parse(f.description) == f, "\(text) -> \(f.description)")
        }
    }

    @Test(arguments: [
        ("", "position 0"), ("genres:", "position 7"), ("genres:Drama AND", "position 16"),
        ("(a:1", "position 4"), ("a:1)", "position 3"), ("a >> 3", "position 3"), ("a < x", "position 4"),
        ("a:x TO 3", "number before TO"), ("a:1 TO", "position 6"), ("\"open", "unterminated"),
        ("a ~ 1", "unexpected character"), ("AND a:1", "attribute name"), ("a b", "position 2"),
    ])
    func malformedFiltersFailWithAPosition(text: String, mentions: String) {
        do {
            _ = try FilterParser.parse(text)
            Issue.record("'\(text)' parsed")
        } catch {
            #expect(error.code == .invalidFilter)
            #expect(error.message.contains(mentions), "'\(text)': \(error.message)")
        }
    }

    /// A filter nested tens of thousands deep (a 50 KB request line) overflowed the stack of
    /// the recursive descent and killed the daemon; it is `invalid_filter` with a position.
    @Test(arguments: ["(", "NOT "])
    func deeplyNestedFiltersAreRefusedNotOverflowed(opening: String) throws {
        let close = opening == "(" ? ")" : ""
        func nested(_ depth: Int) -> String {
            String(repeating: opening, count: depth) + "a:b" + String(repeating: close, count: depth)
        }
        do {
            _ = try FilterParser.parse(nested(50_000))
            Issue.record("a filter nested 50,000 deep parsed")
        } catch {
            #expect(error.code == .invalidFilter)
            // The first opening past the limit is named.
            #expect(error.message.contains("position \(FilterParser.maxDepth * opening.count)"), "\(error.message)")
            #expect(error.message.contains("nesting"), "\(error.message)")
        }
        // The limit itself is accepted.
        var expected: FilterExpression = .facet(attribute: "a", value: "b")
        if opening != "(" { for _ in 0..<FilterParser.maxDepth { expected = .not(expected) } }
        #expect(try FilterParser.parse(nested(FilterParser.maxDepth)) == expected)
    }

    @Test func facetAndNumericFilterArraysNestOrInsideAnd() throws {
        var p = SearchParameters()
        try p.apply(
            [
                "facetFilters": [["genres:Drama", "genres:Comedy"], "-year:1999"],
                "numericFilters": ["price >= 10"], "tagFilters": ["a"],
            ], path: "params")
        #expect(
            p.filter
                == .and([
                    .and([
                        .or([.facet(attribute: "genres", value: "Drama"), .facet(attribute: "genres", value: "Comedy")]),
                        .not(.facet(attribute: "year", value: "1999")),
                    ]),
                    .numeric(attribute: "price", op: .greaterOrEqual, value: 10),
                    .tag("a"),
                ]))
    }

    @Test func filterErrorsNameTheParameterPath() {
        var p = SearchParameters()
        do {
            try p.apply(["facetFilters": ["ok:1", ["bad"]]], path: "params")
            Issue.record("accepted")
        } catch {
            #expect(error.code == .invalidFilter)
            #expect(error.message.hasPrefix("params.facetFilters[1][0]"))
        }
    }

    /// Fuzz: random token soup never crashes the parser; whatever parses round-trips through
    /// its description; whatever fails fails with `invalid_filter` and a position.
    @Test func randomFiltersNeverCrashAndRoundTrip() {
        var rng = SystemRandomNumberGenerator()
        let pieces = [
            "a", "genres", "year", ":", "Drama", "\"x y\"", "AND", "OR", "NOT", "(", ")", "TO", "1", "-2.5",
            "<", "<=", "=", "!=", ">=", ">", " ", "_tags", "é", "\"", "\\", "'",
        ]
        for _ in 0..<3000 {
            let text = (0..<Int.random(in: 0...12, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            do {
                let f = try FilterParser.parse(text)
                let again = try? FilterParser.parse(f.description)
                #expect(again == f, "\(text) -> \(f.description)")
            } catch {
                #expect(error.code == .invalidFilter)
                #expect(error.message.hasPrefix("position "))
            }
        }
    }
}
