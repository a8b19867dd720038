import FederatedSearchCore
import Testing
@testable import FederatedSearchEngine

/// Browse: every match of a query and filters, in `objectID` byte order, page after page from
/// a cursor, across segments; an object that exists throughout a browse is read exactly once,
/// whatever writes land between its pages.
struct BrowseTests {
    static func settings() throws -> IndexSettings {
        try IndexSettings.decode(json(#"{"searchableAttributes": ["title"], "attributesForFaceting": ["kind"]}"#).objectValue!, path: "s")
    }

    static func document(_ id: String, kind: String = "a") -> JSONObject {
        ["objectID": .string(id), "title": .string("item \(id)"), "kind": .string(kind), "n": .number(Double(id.utf8.count))]
    }

    /// Every page of a browse, each asked on what `between` makes of the index after the page.
    static func browseAll(
        _ start: EmbeddedIndex, _ params: String = "{}", text: String = "", limit: Int,
        between: (EmbeddedIndex, Int) throws -> EmbeddedIndex = { i, _ in i }
    ) throws -> [String] {
        var index = start
        var cursor: String?
        var seen: [String] = []
        var page = 0
        while true {
            let q = SearchQuery(text: text, parameters: try SearchParameters.decode(json(params).objectValue!))
            let r = try index.browse(q, after: cursor, limit: limit)
            #expect(r.documents.count <= limit)
            seen += r.documents.compactMap { $0["objectID"]?.stringValue }
            guard r.hasMore else { break }
            cursor = seen.last
            page += 1
            index = try between(index, page)
        }
        return seen
    }

    @Test func pagesCoverEveryMatchOnceInObjectIDOrderAcrossSegments() throws {
        let ids = (0..<50).map { "id\($0)" } + ["Zed", "é", "a b"]
        var index = try EmbeddedIndex(
            name: "t", settings: Self.settings(), documents: ids.prefix(30).map { Self.document($0) },
            positions: (0..<30).map(Int64.init))
        index = try index.updated(
            adding: ids.dropFirst(30).enumerated().map { (Int64(100 + $0), Self.document($1, kind: "b")) }, deleting: ["id3"])
        let expected = ids.filter { $0 != "id3" }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for limit in [1, 7, 1000] { #expect(try Self.browseAll(index, limit: limit) == expected) }
        #expect(try Self.browseAll(index, #"{"filters": "kind:b"}"#, limit: 4) == expected.filter { !ids.prefix(30).contains($0) })
        #expect(try Self.browseAll(index, #"{"queryType": "prefixNone", "typoTolerance": false}"#, text: "id4", limit: 2) == ["id4"])
        #expect(try Self.browseAll(index, text: "id4", limit: 2) == ["id4"] + (40..<50).map { "id\($0)" }, "the last word is a prefix")
        let q = SearchQuery(text: "", parameters: try SearchParameters.decode(json(#"{"attributesToRetrieve": ["title"]}"#).objectValue!))
        let first = try index.browse(q, after: nil, limit: 1)
        #expect(first.nbHits == expected.count)
        #expect(first.documents.first == ["objectID": .string(expected[0]), "title": .string("item \(expected[0])")])
    }

    @Test func writesBetweenPagesNeitherRepeatNorSkipWhatExistsThroughout() throws {
        let ids = (0..<40).map { String(format: "k%02d", $0) }
        let start = try EmbeddedIndex(
            name: "t", settings: Self.settings(), documents: ids.map { Self.document($0) },
            positions: (0..<40).map(Int64.init))
        let seen = try Self.browseAll(start, limit: 5) { index, page in
            // Replace an object already read and one not yet read, delete one ahead, add one
            // behind and one ahead of the cursor.
            try index.updated(
                adding: [(Int64(1000 + 2 * page), Self.document(ids[page])), (Int64(1001 + 2 * page), Self.document("k\(page)x"))],
                deleting: [ids[39 - page]])
        }
        let deleted = Set((1...7).map { ids[39 - $0] })
        let throughout = ids.filter { !deleted.contains($0) }
        for id in throughout { #expect(seen.filter { $0 == id }.count == 1, "\(id): \(seen)") }
        #expect(Set(seen).count == seen.count, "no object twice: \(seen)")
    }
}
