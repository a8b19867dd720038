import Testing
@testable import FederatedSearchCore

/// Typed field access names the JSON path in every error and refuses unknown keys.
struct FieldReaderTests {
    @Test func wrongTypesNameThePath() {
        var r = FieldReader(["n": "x", "a": [1]], path: "params")
        #expect(throws: SearchError(.invalidField, "params.n: expected an integer, got string")) {
            try r.int("n", in: 0...5)
        }
        #expect(throws: SearchError(.invalidField, "params.a[0]: expected a string, got number")) {
            try r.stringArray("a")
        }
    }

    @Test func rangesAreChecked() {
        var r = FieldReader(["hitsPerPage": 5000])
        #expect(throws: SearchError.self) { try r.int("hitsPerPage", in: 0...1000) }
    }

    @Test func unknownKeysAreRejected() throws {
        var r = FieldReader(["page": 1, "pgae": 2], path: "params")
        _ = try r.int("page", in: 0...10)
        #expect(throws: SearchError(.unknownField, "params.pgae: unknown field")) { try r.rejectUnknownKeys() }
    }

    /// A reader that reads each key once stops looking once every entry was read; what it
    /// finds, misses and rejects is the same as an ordinary reader's.
    @Test func readingEachKeyOnceFindsTheSameFields() throws {
        let object: JSONObject = ["page": 1, "facets": "genres", "pgae": 2]
        for once in [false, true] {
            var r = FieldReader(object, path: "params", readsEachKeyOnce: once)
            #expect(try r.int("hitsPerPage", in: 0...10) == nil)
            #expect(try r.int("page", in: 0...10) == 1)
            #expect(try r.stringArray("facets", allowSingle: true) == ["genres"])
            #expect(r.value("filters") == nil)
            #expect(throws: SearchError(.unknownField, "params.pgae: unknown field")) { try r.rejectUnknownKeys() }
            #expect(r.value("pgae") == 2)  // the last entry: read now, every entry seen
            #expect(r.value("typoTolerance") == nil)
            try r.rejectUnknownKeys()
        }
        // Every parameter of a request decodes through such a reader.
        let p = try SearchParameters.decode(
            ["hitsPerPage": 5, "page": 2, "typoTolerance": "min", "restrictSearchableAttributes": ["title"]])
        #expect(p.hitsPerPage == 5 && p.page == 2 && p.typoToleranceMode == .min && p.restrictSearchableAttributes == ["title"])
    }

    @Test func searchParametersDefaultsAndEncoding() throws {
        let p = try SearchParameters.decode(["hitsPerPage": 5, "facets": "genres", "filters": "a:\"b c\""])
        #expect(p.hitsPerPage == 5)
        #expect(p.facets == ["genres"])
        #expect(p.page == 0)
        #expect(
            p.encodedForResponse(query: "star wars")
                == "query=star%20wars&hitsPerPage=5&page=0&facets=%5B%22genres%22%5D&filters=a%3A%22b%20c%22")
        #expect(SearchParameters().encodedForResponse(query: "été~_.-&=+/") == "query=%C3%A9t%C3%A9~_.-%26%3D%2B%2F&hitsPerPage=20&page=0")
    }
}
