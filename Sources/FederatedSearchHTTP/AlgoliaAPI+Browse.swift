import Foundation
import FederatedSearchCore
import FederatedSearchServer

/// `browse`: every record of an index that matches a query and filters, page after page, with
/// a cursor, for the clients' `browse_objects` helpers.
extension AlgoliaAPI {
    /// The most hits a browse page holds, and its default.
    static let maxBrowseHits = 1000

    /// `POST /1/indexes/{index}/browse` (parameters as members or `params`, and `cursor`) and
    /// `GET /1/indexes/{index}/browse?cursor=...&hitsPerPage=...`. The cursor is the last
    /// `objectID` given, encoded: the next page starts after it, so a record that exists
    /// throughout the browse is given exactly once, whatever writes land meanwhile.
    func browse(_ index: String, _ x: Exchange, fromURL: Bool) async -> HTTPResponse {
        var object: JSONObject
        switch searchObject(x, fromURL: fromURL) {
        case .failure(let r): return r
        case .success(let o): object = o
        }
        let path = fromURL ? "query string" : "body"
        var after: String?
        switch object["cursor"] {
        case .string(let c)? where !c.isEmpty:
            guard let decoded = Self.decodeCursor(c) else {
                return .error(SearchError(.invalidField, "\(path).cursor: not a cursor this daemon gave"))
            }
            after = decoded
        case .string?, .null?, nil: break
        case let other?: return .error(SearchError(.invalidField, "\(path).cursor: expected a string, got \(other.typeName)"))
        }
        object["cursor"] = nil
        let decoded: (query: String, raw: JSONObject, params: SearchParameters)
        do { decoded = try AlgoliaParams.decode(object, path: path) } catch { return .error(error) }
        var params = decoded.params
        if let restriction = x.secured?.restriction {
            do { params = try restriction.apply(to: decoded.raw, path: path) } catch { return .error(error) }
        }
        if decoded.raw["hitsPerPage"] == nil { params.hitsPerPage = Self.maxBrowseHits }
        guard let entry = x.core.catalog.entry(index, visibleTo: x.peer) else {
            return .error(x.core.catalog.unknownIndex(index, path: "index", peer: x.peer))
        }
        guard let browsable = entry.searchable as? any Browsable else {
            return .error(SearchError(.unsupportedOperation, "index: '\(index)' (\(entry.kind)) cannot be browsed"))
        }
        let started = ContinuousClock.now
        let query = SearchQuery(text: decoded.query, parameters: params, deadline: started + .seconds(30))
        let page: BrowsePage
        do { page = try browsable.browse(query, after: after, limit: params.hitsPerPage) } catch let e as SearchError {
            return .error(e)
        } catch {
            return .error(SearchError(.cancelled, "the browse was cancelled"))
        }
        let elapsed = ContinuousClock.now - started
        var out: JSONObject = [
            "hits": .array(page.documents.map { .object($0) }), "nbHits": .number(Double(page.nbHits)), "page": 0,
            "nbPages": .number(page.nbHits == 0 ? 0 : 1), "hitsPerPage": .number(Double(params.hitsPerPage)),
            "exhaustiveNbHits": true, "query": .string(decoded.query), "params": .string(params.encodedForResponse(query: decoded.query)),
            "index": .string(index),
            "processingTimeMS": .number(Double(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)),
        ]
        if page.hasMore, case .string(let last)? = page.documents.last?["objectID"] { out["cursor"] = .string(Self.encodeCursor(last)) }
        return .json(200, .object(out))
    }

    /// A cursor: the last `objectID` given, in URL-safe base64 without padding.
    static func encodeCursor(_ objectID: String) -> String {
        Data(objectID.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// The `objectID` a cursor holds; nil for text that is not one.
    static func decodeCursor(_ cursor: String) -> String? {
        var text = cursor.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        guard let data = Data(base64Encoded: text) else { return nil }
        return String(data: data, encoding: .utf8)
    }
}
