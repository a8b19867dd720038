import Testing
import Foundation
import FederatedSearchCore
import FederatedSearchBackends
import BookshelfBackend

/// The worked example backend (Examples/BookshelfBackend), as docs/CUSTOM_BACKENDS.md shows it:
/// 1. prefix search over title and author, pages, rank-derived scores in [0, 1];
/// 2. conjunctive facets count under the whole filter;
/// 3. a refined disjunctive facet still counts its other values.
struct BookshelfTests {
    static let lines = [
        #"{"objectID":"1","title":"Dune","author":"Frank Herbert","genre":"SF","year":1965}"#,
        #"{"objectID":"2","title":"Dune Messiah","author":"Frank Herbert","genre":"SF","year":1969}"#,
        #"{"objectID":"3","title":"Emma","author":"Jane Austen","genre":"Classic","year":1815}"#,
        #"{"objectID":"4","title":"The Dunwich Horror","author":"H. P. Lovecraft","genre":"Horror","year":1929}"#,
    ]

    func shelf() throws -> ClientSearchable<BookshelfClient> {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bookshelf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("books.ndjson")
        try Self.lines.joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
        return try Bookshelf.make(BackendConfig(name: "books", options: ["books": .string(file.path)], path: "searchables.books"))
    }

    @Test func prefixSearchPagesAndScores() async throws {
        let s = try shelf()
        let r = try await s.search(SearchQuery(text: "dun", parameters: try SearchParameters.decode(["hitsPerPage": 2])))
        #expect(r.nbHits == 3)
        #expect(r.nbPages == 2)
        #expect(r.hits.map(\.objectID) == ["1", "2"])
        #expect(r.hits.allSatisfy { (0...1).contains($0.rankingScore) })
        #expect(r.hits[0].rankingScore > r.hits[1].rankingScore)
        #expect(r.index == "books")
    }

    @Test func disjunctiveFacetKeepsOtherValues() async throws {
        let s = try shelf()
        let params: JSONObject = ["facets": ["genre", "author"], "disjunctiveFacets": ["genre"], "filters": "genre:SF"]
        let r = try await s.search(SearchQuery(text: "", parameters: try SearchParameters.decode(params)))
        #expect(r.nbHits == 2)
        let genre = r.facets.first { $0.attribute == "genre" }
        let author = r.facets.first { $0.attribute == "author" }
        #expect(genre?.values.map(\.value) == ["SF", "Classic", "Horror"])
        // author is conjunctive: counted under the genre:SF filter.
        #expect(author?.values.map(\.value) == ["Frank Herbert"])
        #expect(author?.values.first?.count == 2)
    }

    @Test func missingBooksFileNamesTheField() throws {
        #expect(throws: SearchError.self) {
            _ = try Bookshelf.make(BackendConfig(name: "b", options: ["books": "/nonexistent.ndjson"], path: "searchables.b"))
        }
        do {
            _ = try Bookshelf.make(BackendConfig(name: "b", options: ["books": "x", "bogus": 1], path: "searchables.b"))
        } catch let e as SearchError {
            #expect(e.message.hasPrefix("searchables.b.bogus"))
        }
    }
}
