import Testing
import FederatedSearchCore
@testable import InstantSearch

/// `FilterState`: groups produce the daemon's filters (and groups AND, or groups OR,
/// hierarchical the deepest level) and the disjunctive facets; changes fire once each, or once
/// per batch; aliases rename attributes per index.
@MainActor
struct FilterStateTests {
    final class Counter { var n = 0 }

    @Test func groupsMakeTheFiltersAndTheDisjunctiveFacets() throws {
        let fs = FilterState()
        fs.add(.facet(attribute: "genres", value: "Drama"), toGroupWithID: .or("genres"))
        fs.add(.facet(attribute: "genres", value: "Science Fiction"), toGroupWithID: .or("genres"))
        fs.add(.numeric(attribute: "year", op: .greaterOrEqual, value: 1990), toGroupWithID: .and("year"))
        fs.add(.facet(attribute: "cast", value: "Nobody", isNegated: true), toGroupWithID: .and("cast"))
        fs.add(.tag("classic"), toGroupWithID: .and("tags"))
        fs.set(
            [.facet(attribute: "cat.lvl0", value: "Books"), .facet(attribute: "cat.lvl1", value: "Books > SF")],
            inGroupWithID: .hierarchical("cat"))
        let text = try #require(fs.filters.text())
        #expect(
            text
                == #"((genres:Drama OR genres:"Science Fiction") AND year >= 1990 AND NOT cast:Nobody AND _tags:classic AND cat.lvl1:"Books > SF")"#
        )
        #expect(try FilterParser.parse(text) == fs.filters.expression(), "the text parses back as the daemon reads it")
        #expect(fs.filters.disjunctiveFacets() == ["genres"])
        #expect(fs.filters.text(aliases: ["genres": "category"])?.contains("category:Drama") == true)
        #expect(fs.filters.disjunctiveFacets(aliases: ["genres": "category"]) == ["category"])
    }

    @Test func changesFireOnceAndNothingFiresWhenNothingChanged() {
        let fs = FilterState()
        let c = Counter()
        fs.onChange.subscribe(with: c) { c, _ in c.n += 1 }
        let drama = Filter.facet(attribute: "genres", value: "Drama")
        fs.add(drama, toGroupWithID: .or("genres"))
        fs.add(drama, toGroupWithID: .or("genres"))
        #expect(c.n == 1)
        fs.toggle(drama, inGroupWithID: .or("genres"))
        #expect(c.n == 2 && fs.filters.isEmpty)
        fs.batch {
            fs.add(drama, toGroupWithID: .or("genres"))
            fs.add(.tag("x"), toGroupWithID: .and("t"))
        }
        #expect(c.n == 3)
        fs.removeAll(except: [.and("t")])
        #expect(fs.filters.all.map(\.filter) == [.tag("x")])
        fs.removeAll(fromGroupWithID: .or("nothing"))
        #expect(c.n == 4)
    }

    @Test func numberLikeFacetValuesKeepTheirText() throws {
        let fs = FilterState()
        fs.add(.facet(attribute: "version", value: "1.50"), toGroupWithID: .or("version"))
        fs.add(.facet(attribute: "zip", value: "02134"), toGroupWithID: .and("zip"))
        let text = try #require(fs.filters.text())
        #expect(try FilterParser.parse(text) == fs.filters.expression(), "\(text)")
        #expect(text == #"(version:"1.50" AND zip:"02134")"#)
    }
}
