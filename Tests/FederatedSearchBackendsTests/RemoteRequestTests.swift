import Testing
import FederatedSearchCore
import FederatedSearchProtocol
@testable import FederatedSearchBackends

/// The request the `fedsearchd` backend sends: its parameters decode back to the same search.
struct RemoteRequestTests {
    @Test func parametersRoundTrip() throws {
        let params: JSONObject = [
            "hitsPerPage": 7, "page": 2, "facets": ["genre"], "filters": "genre:SF AND year >= 1960",
            "facetFilters": [["genre:SF", "genre:Horror"]], "numericFilters": ["year:1900 TO 2000"],
            "attributesToRetrieve": ["title"], "typoTolerance": "min", "disjunctiveFacets": ["genre"],
            "queryType": "prefixNone", "matchingStrategy": "any", "distinct": 1, "aroundLatLng": "48.85, 2.35",
            "highlightPreTag": "<b>", "sortFacetValuesBy": "alpha", "optionalWords": ["the"],
        ]
        let original = try SearchParameters.decode(params)
        let back = try SearchParameters.decode(original.requestJSON())
        #expect(back == original)
    }

    @Test func requestNamesTheRemoteIndexAndTheTimeLeft() throws {
        let backend = RemoteDaemonBackend(name: "library", socketPath: "/tmp/x.sock", remoteIndex: "books")
        let q = SearchQuery(text: "dune", parameters: SearchParameters(), deadline: .now + .seconds(2))
        let r = backend.makeRequest(q)
        #expect(r.indices == ["books"])
        #expect(r.query == "dune")
        let ms = try #require(r.timeoutMs)
        #expect((1...2000).contains(ms))
    }

    @Test func configNeedsASocket() {
        #expect(throws: SearchError(.missingField, "searchables.r.socket: required field is missing")) {
            _ = try RemoteDaemonBackend(BackendConfig(name: "r", options: [:], path: "searchables.r"))
        }
    }
}
