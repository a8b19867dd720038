import Testing
import FederatedSearchCore
@testable import FederatedSearchBackends

/// Filters (parsed from Algolia syntax) translated into Typesense's `filter_by`, and the ones
/// Typesense cannot express rejected as `invalid_filter` naming what failed.
struct TypesenseFilterTests {
    func translate(_ filters: String) throws -> String {
        try TypesenseFilter.translate(try FilterParser.parse(filters))
    }

    func rejection(_ filters: String) throws -> SearchError? {
        do {
            _ = try translate(filters)
            return nil
        } catch let e as SearchError { return e }
    }

    @Test func facetValuesAreBacktickQuotedExceptNumbersAndBooleans() throws {
        #expect(try translate("supplier:Lexmark") == "supplier:=`Lexmark`")
        #expect(try translate(#"supplier:"Hewlett Packard, Inc.""#) == "supplier:=`Hewlett Packard, Inc.`")
        #expect(try translate(#"supplier:"a && b || (c)""#) == "supplier:=`a && b || (c)`")
        #expect(try translate("year:1999") == "year:=1999")
        #expect(try translate("ratio:-0.5") == "ratio:=-0.5")
        #expect(try translate("inStock:true") == "inStock:=true")
    }

    @Test func numericComparisonsAndRanges() throws {
        #expect(try translate("price >= 100") == "price:>=100")
        #expect(try translate("price > 9.5") == "price:>9.5")
        #expect(try translate("price < 3") == "price:<3")
        #expect(try translate("price <= 3") == "price:<=3")
        #expect(try translate("price = 3") == "price:=3")
        #expect(try translate("price != 3") == "price:!=3")
        #expect(try translate("price:100 TO 20000") == "price:[100..20000]")
    }

    @Test func andOrNestWithParentheses() throws {
        #expect(try translate("supplier:HP AND price > 10") == "(supplier:=`HP` && price:>10)")
        #expect(
            try translate("supplier:HP OR supplier:OKI AND price < 5")
                == "(supplier:=`HP` || (supplier:=`OKI` && price:<5))")
        #expect(
            try translate("(supplier:HP OR supplier:OKI) AND price:1 TO 5")
                == "((supplier:=`HP` || supplier:=`OKI`) && price:[1..5])")
    }

    @Test func notOfAFacetOrAnEqualityIsTranslated() throws {
        #expect(try translate("NOT supplier:HP") == "supplier:!=`HP`")
        #expect(try translate("price > 1 AND NOT supplier:HP") == "(price:>1 && supplier:!=`HP`)")
        #expect(try translate("NOT price = 3") == "price:!=3")
        #expect(try translate("NOT price != 3") == "price:=3")
    }

    @Test func untranslatableFiltersAreInvalidFilterNamingThePart() throws {
        let notRange = try rejection("NOT price:1 TO 5")
        #expect(notRange?.code == .invalidFilter)
        #expect(notRange?.message.contains("NOT price:1 TO 5") == true)
        #expect(try rejection("NOT price > 3")?.code == .invalidFilter)
        #expect(try rejection("NOT (supplier:HP OR supplier:OKI)")?.code == .invalidFilter)
        let tag = try rejection("_tags:sale")
        #expect(tag?.code == .invalidFilter)
        #expect(tag?.message.contains("sale") == true)
        let backtick = try rejection(#"supplier:"a`b""#)
        #expect(backtick?.code == .invalidFilter)
        #expect(backtick?.message.contains("backtick") == true)
        let attribute = try rejection(#""bad name":x"#)
        #expect(attribute?.code == .invalidFilter)
        #expect(attribute?.message.contains("bad name") == true)
    }
}
