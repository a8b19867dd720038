import FederatedSearchCore
@testable import FederatedSearchEngine

/// Parses JSON text that the test knows is valid.
func json(_ text: String) -> JSONValue {
    do { return try JSONParser.parse(text) } catch { fatalError("bad test JSON: \(error): \(text)") }
}

/// Documents from JSON-lines text.
func documents(_ ndjson: String) -> [JSONObject] {
    ndjson.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map {
        json(String($0)).objectValue!
    }
}

/// An index over JSON-lines documents with settings given as JSON.
func makeIndex(_ settings: String = "{}", _ ndjson: String, name: String = "test") throws -> EmbeddedIndex {
    let s = try IndexSettings.decode(json(settings).objectValue!, path: "searchables.\(name)")
    return try EmbeddedIndex(name: name, settings: s, documents: documents(ndjson))
}

/// Runs a query with parameters given as JSON.
func search(_ index: EmbeddedIndex, _ text: String, _ params: String = "{}") throws -> SearchResults {
    let p = try SearchParameters.decode(json(params).objectValue!)
    return try index.searchSync(SearchQuery(text: text, parameters: p))
}

/// The objectIDs of the hits, in order.
func ids(_ r: SearchResults) -> [String] { r.hits.map(\.objectID) }

/// A facet's counts as a dictionary.
func counts(_ r: SearchResults, _ facet: String) -> [String: Int] {
    var out: [String: Int] = [:]
    for f in r.facets where f.attribute == facet { for v in f.values { out[v.value] = v.count } }
    return out
}

import Foundation
