import Testing
import FederatedSearchCore
@testable import FederatedSearchProtocol

/// The client's encoder and the daemon's decoder are one codec: every request the client can
/// build goes through `Request.line()` and `RequestDecoder.decode` and comes back equal.
struct RequestEncodingTests {
    func roundTrip(_ request: Request) throws -> Request {
        let line = request.line()
        #expect(line.last == 0x0A)
        return try RequestDecoder.decode(Array(line.dropLast())).get()
    }

    func params(_ o: JSONObject) throws -> SearchParameters { try SearchParameters.decode(o) }

    @Test func membersEncodedOnceGiveTheLineEncodedInFull() throws {
        let first = SearchRequest(
            query: "sta", targets: [SearchTarget(index: "movies", params: ["hitsPerPage": 5]), SearchTarget(index: "products")],
            parameters: try params(["hitsPerPage": 10, "facets": ["genres"]]), timeoutMs: 80, session: "s1", seq: 1,
            merge: ["strategy": "interleaved"], mergeFacets: ["maxValuesPerFacet": 5], facetAliases: ["brand": ["products": "supplier"]])
        var next = first
        next.query = "star \"wa\""
        next.seq = 2
        let plain = Request(id: "c2", operation: .search(next)).line()
        next.encodedMembers = first.encodeStableMembers()
        #expect(
            next
                == SearchRequest(
                    query: next.query, targets: next.targets, params: next.params, rawParams: next.rawParams,
                    timeoutMs: 80, session: "s1", seq: 2, merge: next.merge, mergeFacets: next.mergeFacets,
                    facetAliases: next.facetAliases), "the cache is not part of the value")
        #expect(Request(id: "c2", operation: .search(next)).line() == plain)
        #expect(try roundTrip(Request(id: "c2", operation: .search(next))) == Request(id: "c2", operation: .search(next)))
    }

    @Test func aFederatedSearchWithEveryFieldRoundTrips() throws {
        let p = try params([
            "hitsPerPage": 7, "page": 2, "facets": ["genres"], "filters": "genres:Drama AND year >= 1960",
            "facetFilters": [["genres:SF", "genres:Horror"], "-cast:Nobody"], "numericFilters": ["year:1900 TO 2000"],
            "tagFilters": ["classic"], "attributesToRetrieve": ["title"], "attributesToHighlight": ["title"],
            "typoTolerance": "min", "disjunctiveFacets": ["genres"], "queryType": "prefixNone", "matchingStrategy": "any",
            "distinct": 1, "aroundLatLng": "48.8566, 2.3522", "aroundRadius": 1500.5, "highlightPreTag": "<b>",
            "highlightPostTag": "</b>", "sortFacetValuesBy": "alpha", "optionalWords": ["the"], "offset": 3, "length": 4,
            "attributesToSnippet": ["extract:5"], "snippetEllipsisText": "...", "removeWordsIfNoResults": "lastWords",
            "advancedSyntax": false, "minWordSizefor1Typo": 3, "minWordSizefor2Typos": 6, "getRankingInfo": true,
            "restrictSearchableAttributes": ["title"], "maxValuesPerFacet": 7,
        ])
        let search = SearchRequest(
            query: "star wa",
            targets: [
                SearchTarget(index: "movies"),
                SearchTarget(index: "movies", name: "classics", params: ["filters": "year < 1950"], weight: 2, timeoutMs: 90),
            ],
            parameters: p, perIndex: ["movies": ["hitsPerPage": 3]], timeoutMs: 250, session: "tab-1", seq: 41,
            merge: ["strategy": "rrf", "limit": 5], mergeFacets: ["maxValuesPerFacet": 4],
            facetAliases: ["brand": ["products": "supplier"]])
        let request = Request(id: "q7", operation: .search(search))
        #expect(try roundTrip(request) == request)
    }

    @Test func aPlainSearchIsShortOnTheWire() throws {
        let request = Request(
            id: "1",
            operation: .search(
                SearchRequest(
                    query: "dune", targets: [SearchTarget(index: "movies")],
                    parameters: SearchParameters())))
        #expect(
            JSONWriter.string(request.json())
                == #"{"id":"1","op":"search","query":"dune","indices":["movies"],"params":{"hitsPerPage":20,"page":0}}"#)
        #expect(try roundTrip(request) == request)
    }

    @Test func everyOtherOperationRoundTrips() throws {
        let doc: JSONObject = ["objectID": "p1", "title": "Lamp", "price": 12.5, "tags": ["a", "b"], "extra": .null]
        let operations: [Request.Operation] = [
            .cancel(target: "q1"), .ping, .indices, .stats, .reload, .unsubscribe(target: "live"), .watch(indices: ["films", "notes"]),
            .searchForFacetValues(
                FacetValuesRequest(
                    index: "products", facetName: "supplier", facetQuery: "hew", query: "laptop",
                    params: try params(["filters": "price < 100000"]), maxFacetHits: 5)),
            .index("products", .documents(op: "addDocuments", [.upsert(doc)])),
            .index("products", .documents(op: "partialUpdateDocuments", [.merge(["objectID": "p1", "price": 3])])),
            .index("products", .documents(op: "deleteDocuments", [.delete("p1"), .delete("p2")])),
            .index("products", .documents(op: "clearIndex", [.clear])),
            .index("products", .deleteBy(try params(["filters": "supplier:Acme AND price < 10"]))),
            .index("products", .setSettings(["customRanking": ["desc(price)"], "synonyms": .null])),
            .index("products", .getDocuments(["p1", "zz"])),
            .index("products", .getSettings),
            .index("notes", .createIndex(settings: ["searchableAttributes": ["text"]])),
            .index("notes", .createIndex(settings: [:])),
            .index(
                "shop",
                .createIndex(
                    settings: [:],
                    searchable: [
                        "backend": "typesense", "url": "http://127.0.0.1:8108", "collection": "shop",
                        "apiKey": ["env": "TS_KEY"], "queryBy": ["title"], "facetBy": ["brand", "price"], "numericFields": ["price"],
                    ])),
            .index("notes", .deleteIndex),
        ]
        for (i, op) in operations.enumerated() {
            let request = Request(id: "r\(i)", operation: op)
            #expect(try roundTrip(request) == request, "operation \(request.opName)")
        }
    }

    @Test func aFilterBuiltInCodeTravelsAsItsText() throws {
        var p = SearchParameters()
        p.filter = try FilterParser.parse("genres:Drama OR year > 2000")
        let back = try SearchParameters.decode(p.requestJSON())
        #expect(back.filter == p.filter)
    }

    @Test func requestWithoutIdHasNone() throws {
        let request = Request(id: nil, operation: .ping)
        #expect(JSONWriter.string(request.json()) == #"{"op":"ping"}"#)
        #expect(try roundTrip(request) == request)
    }
}
