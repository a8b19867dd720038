import Testing
import FederatedSearchCore
@testable import FederatedSearchFederation

func object(_ text: String) -> JSONObject {
    guard case .object(let o)? = try? JSONParser.parse(text) else { fatalError("not an object: \(text)") }
    return o
}

/// Decoding of the `merge` object: defaults, every field, and errors that name the path.
struct MergeOptionsTests {
    func error(_ text: String) -> SearchError? {
        do {
            _ = try MergeOptions.decode(object(text), path: "merge")
            return nil
        } catch {
            return error
        }
    }

    @Test func defaults() throws {
        let o = try MergeOptions.decode(JSONObject(), path: "merge")
        #expect(o == MergeOptions(strategy: .score, offset: 0, limit: 20, k: 60))
        #expect(o.fetchDepth == 20)
        #expect(o.minPerIndex.isEmpty && o.maxPerIndex.isEmpty && o.distinctKey == nil)
    }

    @Test func decodesEveryField() throws {
        let o = try MergeOptions.decode(
            object(
                """
                {"strategy": "rrf", "offset": 10, "limit": 5, "k": 10, "minPerIndex": {"movies": 2},
                 "maxPerIndex": 4, "distinctKey": "sku"}
                """), path: "merge")
        #expect(o.strategy == .rrf && o.offset == 10 && o.limit == 5 && o.k == 10 && o.distinctKey == "sku")
        #expect(o.fetchDepth == 15)
        #expect(o.minPerIndex == IndexQuota(byName: ["movies": 2]))
        #expect(o.maxPerIndex == IndexQuota(all: 4))
        #expect(o.minPerIndex.value(for: "movies") == 2 && o.minPerIndex.value(for: "books") == nil)
        #expect(o.maxPerIndex.value(for: "books") == 4)
        for s in ["score", "interleave", "grouped"] {
            #expect(try MergeOptions.decode(object("{\"strategy\": \"\(s)\"}"), path: "merge").strategy.rawValue == s)
        }
    }

    @Test func namedQuotaOverridesTheEveryIndexOne() {
        let q = IndexQuota(all: 3, byName: ["movies": 1])
        #expect(q.value(for: "movies") == 1 && q.value(for: "books") == 3)
    }

    @Test func rejectsUnknownFieldsAndWrongTypesNamingThePath() {
        #expect(error(#"{"limt": 3}"#) == SearchError(.unknownField, "merge.limt: unknown field"))
        #expect(error(#"{"weights": {"a": 2}}"#)?.code == .unknownField)
        #expect(
            error(#"{"strategy": "best"}"#)
                == SearchError(.invalidField, "merge.strategy: expected one of score, rrf, interleave, grouped, got \"best\""))
        #expect(error(#"{"strategy": 1}"#) == SearchError(.invalidField, "merge.strategy: expected a string, got number"))
        #expect(error(#"{"limit": "10"}"#) == SearchError(.invalidField, "merge.limit: expected an integer, got string"))
        #expect(error(#"{"limit": 1001}"#) == SearchError(.invalidField, "merge.limit: 1001 is out of range 0...1000"))
        #expect(error(#"{"offset": -1}"#)?.code == .invalidField)
        #expect(error(#"{"k": 1.5}"#) == SearchError(.invalidField, "merge.k: expected an integer, got number"))
        #expect(
            error(#"{"minPerIndex": {"movies": "2"}}"#)
                == SearchError(.invalidField, "merge.minPerIndex.movies: expected an integer, got string"))
        #expect(
            error(#"{"maxPerIndex": [1]}"#)
                == SearchError(.invalidField, "merge.maxPerIndex: expected an integer or an object of integers, got array"))
        #expect(
            error(#"{"maxPerIndex": {"a": -1}}"#)
                == SearchError(.invalidField, "merge.maxPerIndex.a: -1 is out of range 0...1000000"))
        #expect(error(#"{"distinctKey": ""}"#)?.code == .invalidField)
        #expect(error(#"{"distinctKey": 3}"#) == SearchError(.invalidField, "merge.distinctKey: expected a string, got number"))
    }

    @Test func validateRejectsQuotasForIndicesNotInTheRequest() throws {
        let o = try MergeOptions.decode(object(#"{"minPerIndex": {"movies": 1}, "maxPerIndex": {"books": 2}}"#), path: "merge")
        #expect(throws: Never.self) { try o.validate(sourceNames: ["movies", "books"], path: "merge") }
        #expect(throws: SearchError(.invalidField, "merge.maxPerIndex.books: no index of the request answers as books")) {
            try o.validate(sourceNames: ["movies"], path: "merge")
        }
    }
}
