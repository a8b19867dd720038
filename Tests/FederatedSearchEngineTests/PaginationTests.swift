import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// Pagination and response fields: page/hitsPerPage, offset/length, paginationLimitedTo,
/// attributesToRetrieve, params/index/query echoed.
@Suite struct PaginationTests {
    func index(_ settings: String = "{}") throws -> EmbeddedIndex {
        let lines = (0..<25).map { #"{"objectID": "\#($0)", "title": "item number \#($0)", "secret": "s", "n": \#($0)}"# }
        return try makeIndex(settings, lines.joined(separator: "\n"), name: "items")
    }

    @Test func pages() throws {
        let r = try search(index(), "item", #"{"hitsPerPage": 10, "page": 2}"#)
        #expect(r.nbHits == 25 && r.nbPages == 3 && r.page == 2 && r.hitsPerPage == 10)
        #expect(ids(r) == (20..<25).map(String.init))
        #expect(try search(index(), "item", #"{"hitsPerPage": 10, "page": 3}"#).hits.isEmpty)
    }

    @Test func offsetAndLength() throws {
        let r = try search(index(), "item", #"{"offset": 3, "length": 4}"#)
        #expect(ids(r) == ["3", "4", "5", "6"])
    }

    @Test func paginationLimit() throws {
        let r = try search(index(#"{"paginationLimitedTo": 12}"#), "item", #"{"hitsPerPage": 5, "page": 2}"#)
        #expect(r.nbHits == 25 && r.nbPages == 3)
        #expect(ids(r) == ["10", "11"])
    }

    @Test func retrieveAndEcho() throws {
        let idx = try index(#"{"unretrievableAttributes": ["secret"]}"#)
        let r = try search(idx, "number 7", #"{"attributesToRetrieve": ["title"], "hitsPerPage": 1}"#)
        #expect(r.hits[0].attributes.keys == ["title"])
        let all = try search(idx, "number 7")
        #expect(all.hits[0].attributes.keys == ["title", "n"])
        let minus = try search(idx, "number 7", #"{"attributesToRetrieve": ["*", "-n"]}"#)
        #expect(minus.hits[0].attributes.keys == ["title"])
        // Nor is an unretrievable attribute highlighted, even when asked for (or through `*`).
        #expect(all.hits[0].highlightResult?["secret"] == nil)
        for asked in [#"["secret", "title"]"#, #"["*"]"#] {
            let h = try search(idx, "number 7", #"{"attributesToHighlight": \#(asked)}"#).hits[0].highlightResult
            #expect(h?["secret"] == nil)
            #expect(h?["title"]?.objectValue?["matchLevel"] == "full")
        }
        #expect(r.index == "items" && r.query == "number 7")
        let sent = try SearchParameters.decode(json(#"{"attributesToRetrieve": ["title"], "hitsPerPage": 1}"#).objectValue!)
        #expect(r.params == sent.encodedForResponse(query: "number 7"))
        #expect(r.processingTimeMS >= 0)
    }
}
