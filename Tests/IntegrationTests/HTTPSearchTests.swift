import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// Algolia's search API over the daemon's HTTP listener, against the real binary on the demo
/// config: the answers of the socket, in the shapes and status codes Algolia's clients expect.
@Suite(.serialized)
struct HTTPSearchTests {
    /// A results object without the members that differ from one run to the next.
    static func stable(_ results: JSONObject) -> JSONObject {
        var r = results
        r["processingTimeMS"] = nil
        r["processingTimingsMS"] = nil
        return r
    }

    /// Expects two results objects to be the same, ignoring timings; on a difference, records
    /// where they first differ (not both whole: they are large).
    static func expectSame(_ a: JSONObject, _ b: JSONObject, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let x = Array(JSONWriter.string(.object(stable(a))).utf8)
        let y = Array(JSONWriter.string(.object(stable(b))).utf8)
        guard x != y else { return }
        let at = (0..<min(x.count, y.count)).first { x[$0] != y[$0] } ?? min(x.count, y.count)
        let from = max(0, at - 80)
        Issue.record(
            "\(what) differs at byte \(at): \(String(decoding: x[from..<min(x.count, at + 80)], as: UTF8.self)) | \(String(decoding: y[from..<min(y.count, at + 80)], as: UTF8.self))",
            sourceLocation: sourceLocation)
    }

    /// The socket's results for one index.
    static func socketResults(_ d: DaemonProcess, _ index: String, query: String, params: JSONObject) throws -> JSONObject {
        let c = try d.connect()
        try c.send(["id": "s", "op": "search", "query": .string(query), "indices": [.string(index)], "params": .object(params)])
        // The frame as the daemon wrote it (parsed from its line, not decoded into types).
        while let line = try c.readLine() {
            guard case .object(let frame) = try JSONParser.parse(line) else { continue }
            if frame["type"] == "results", case .object(let results)? = frame["results"] { return results }
            if frame["type"] == "done" || frame["type"] == "error" { break }
        }
        throw DaemonProcess.DaemonError(description: "no results over the socket")
    }

    @Test func aSearchAnswersAsOnTheSocket() throws {
        let d = try DaemonProcess.demo(http: true)
        defer { d.stop() }
        let http = try d.http()
        let params: JSONObject = ["hitsPerPage": 5, "facets": ["genres"], "filters": "year > 1990"]
        let socket = try Self.socketResults(d, "movies", query: "star wars", params: params)
        var body = params
        body["query"] = "star wars"
        let single = try http.request("POST", "/1/indexes/movies/query", json: .object(body))
        #expect(single.status == 200)
        #expect(single.headers["content-type"]?.hasPrefix("application/json") == true)
        Self.expectSame(single.json, socket, "POST query")
        // The multi-query with the parameters as Algolia's URL-encoded string, and as members.
        let encoded = "query=star%20wars&hitsPerPage=5&facets=%5B%22genres%22%5D&filters=year%20%3E%201990&analytics=false&tagFilters="
        let multi = try http.request(
            "POST", "/1/indexes/*/queries",
            json: [
                "requests": [
                    ["indexName": "movies", "params": .string(encoded)],
                    [
                        "indexName": "movies", "query": "star wars", "hitsPerPage": 5, "facets": ["genres"], "filters": "year > 1990",
                        "clickAnalytics": true,
                    ],
                ]
            ])
        #expect(multi.status == 200)
        let results = try #require(multi.json["results"]?.arrayValue, "no results: \(multi.text)")
        try #require(results.count == 2, "no results: \(multi.text)")
        for r in results {
            guard case .object(let o) = r else { continue }
            Self.expectSame(o, socket, "multi-query")
        }
        // GET with the parameters in the query string.
        let get = try http.request("GET", "/1/indexes/movies?query=star%20wars&hitsPerPage=5&facets=genres&filters=year%20%3E%201990")
        #expect(get.status == 200)
        Self.expectSame(get.json, socket, "GET")
        // The socket's stats count the HTTP requests.
        let stats = try pollStats(try d.connect()) { ($0["http"]?.objectValue?["served"]?.intValue ?? 0) >= 3 }
        #expect((stats?["http"]?.objectValue?["served"]?.intValue ?? 0) == 3, "the POST, the multi-query and the GET")
        #expect(stats?["http"]?.objectValue?["listen"]?.stringValue == "http://127.0.0.1:\(d.httpPort)")
    }

    @Test func multiQueriesCarryFacetEntriesAndAStrategy() throws {
        let d = try DaemonProcess.demo(http: true)
        defer { d.stop() }
        let http = try d.http()
        let r = try http.request(
            "POST", "/1/indexes/*/queries",
            json: [
                "requests": [
                    ["indexName": "products", "query": "phone", "hitsPerPage": 2],
                    ["indexName": "movies", "type": "facet", "facet": "genres", "params": "facetQuery=dr&maxFacetHits=3"],
                ]
            ])
        #expect(r.status == 200)
        let results = try #require(r.json["results"]?.arrayValue, "unexpected answer: \(r.text)")
        try #require(results.count == 2, "unexpected answer: \(r.text)")
        let search = try #require(results[0].objectValue, "unexpected answer: \(r.text)")
        let facetHits = try #require(results[1].objectValue?["facetHits"]?.arrayValue, "unexpected answer: \(r.text)")
        #expect(search["index"] == "products")
        #expect(!facetHits.isEmpty && facetHits.count <= 3)
        for hit in facetHits {
            guard case .object(let h) = hit, let value = h["value"]?.stringValue else { continue }
            #expect(value.lowercased().hasPrefix("dr"))
            #expect(h["highlighted"]?.stringValue?.contains("<em>") == true)
        }
        // stopIfEnoughMatches: the first query has a page of hits, the second is not run.
        let stop = try http.request(
            "POST", "/1/indexes/*/queries",
            json: [
                "strategy": "stopIfEnoughMatches",
                "requests": [["indexName": "movies", "query": "love", "hitsPerPage": 2], ["indexName": "products", "query": "love"]],
            ])
        let two = try #require(stop.json["results"]?.arrayValue, "unexpected answer: \(stop.text)")
        try #require(two.count == 2, "unexpected answer: \(stop.text)")
        let second = try #require(two[1].objectValue, "unexpected answer: \(stop.text)")
        #expect(second["processed"] == false)
        #expect(second["nbHits"] == 0)
    }

    /// What InstantSearch.js sends for a federated page after a click on a genre: a child
    /// `index` widget inherits the refinement, so products gets a facet filter on `genres`,
    /// which it does not facet. As in Algolia, the batch answers 200: movies narrowed, products
    /// with no hits, and the disjunctive query (`hitsPerPage=0`) counting every genre.
    @Test func aRefinementOnlyOneIndexFacetsNarrowsItAndEmptiesTheOthers() throws {
        let d = try DaemonProcess.demo(http: true)
        defer { d.stop() }
        let http = try d.http()
        let refined =
            "facetFilters=%5B%5B%22genres%3AScience%20Fiction%22%5D%5D&facets=%5B%22genres%22%5D"
            + "&highlightPreTag=__ais-highlight__&highlightPostTag=__%2Fais-highlight__&hitsPerPage=20&query=star&tagFilters="
        let r = try http.request(
            "POST", "/1/indexes/*/queries",
            json: [
                "requests": [
                    ["indexName": "movies", "params": .string(refined)],
                    [
                        "indexName": "movies",
                        "params": "analytics=false&clickAnalytics=false&facets=genres&hitsPerPage=0&page=0&query=star",
                    ],
                    ["indexName": "products", "params": .string(refined + "&numericFilters=%5B%22year%3E%3D1900%22%5D")],
                ]
            ])
        #expect(r.status == 200, "\(r.text)")
        let results = try #require(r.json["results"]?.arrayValue, "unexpected answer: \(r.text)")
        try #require(results.count == 3, "unexpected answer: \(r.text)")
        let movies = try #require(results[0].objectValue, "unexpected answer: \(r.text)")
        let disjunctive = try #require(results[1].objectValue, "unexpected answer: \(r.text)")
        let products = try #require(results[2].objectValue, "unexpected answer: \(r.text)")
        let hits = try #require(movies["hits"]?.arrayValue, "unexpected answer: \(r.text)")
        #expect(!hits.isEmpty)
        for case .object(let hit) in hits {
            #expect(hit["genres"]?.arrayValue?.contains("Science Fiction") == true)
        }
        #expect((movies["nbHits"]?.intValue ?? 0) < (disjunctive["nbHits"]?.intValue ?? 0))
        #expect((disjunctive["facets"]?.objectValue?["genres"]?.objectValue?.count ?? 0) > 1)
        #expect(products["nbHits"] == 0)
        #expect(products["hits"] == [])
        // A filter that does not parse is still the request's error.
        let bad = try http.request(
            "POST", "/1/indexes/*/queries",
            json: [
                "requests": [
                    ["indexName": "movies", "params": "filters=genres%3A"], ["indexName": "products", "params": "query=x"],
                ]
            ])
        #expect(bad.status == 400)
        #expect(bad.json["code"] == "invalid_filter" || bad.text.contains("invalid_filter"), "\(bad.text)")
    }

    /// browse: the whole index page after page (POST with the cursor in the body, GET with it
    /// in the query string), with filters and retrieved attributes; a bad cursor is refused.
    @Test func browseReadsTheWholeIndexWithACursor() throws {
        let d = try DaemonProcess.demo(http: true)
        defer { d.stop() }
        let http = try d.http()
        var ids: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            var body: JSONObject = ["hitsPerPage": 700, "attributesToRetrieve": ["title"]]
            if let cursor { body["cursor"] = .string(cursor) }
            let r =
                pages % 2 == 0
                ? try http.request("POST", "/1/indexes/movies/browse", json: .object(body))
                : try http.request("GET", "/1/indexes/movies/browse?hitsPerPage=700&attributesToRetrieve=title&cursor=\(cursor ?? "")")
            #expect(r.status == 200, "\(r.text)")
            #expect(r.json["nbHits"] == 2000)
            let hits = r.json["hits"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(hits.allSatisfy { Set($0.keys).isSubset(of: ["objectID", "title"]) })
            ids += hits.compactMap { $0["objectID"]?.stringValue }
            cursor = r.json["cursor"]?.stringValue
            pages += 1
        } while cursor != nil && pages < 10
        #expect(pages == 3)
        #expect(ids.count == 2000 && Set(ids).count == 2000)
        let filtered = try http.request("POST", "/1/indexes/movies/browse", json: ["params": "filters=year%3C1930&hitsPerPage=1000"])
        let old = filtered.json["hits"]?.arrayValue ?? []
        #expect(old.count == 495 && filtered.json["nbHits"] == 495)
        #expect(!old.isEmpty && filtered.json["cursor"] == nil)
        #expect(old.allSatisfy { ($0.objectValue?["year"]?.numberValue ?? 9999) < 1930 })
        let bad = try http.request("POST", "/1/indexes/movies/browse", json: ["cursor": "%%%"])
        #expect(bad.status == 400 && bad.json["code"] == "invalid_field", "\(bad.text)")
    }

    @Test func facetValuesObjectsIndicesAndSettings() throws {
        let d = try DaemonProcess.demo(http: true)
        defer { d.stop() }
        let http = try d.http()
        let facets = try http.request("POST", "/1/indexes/movies/facets/genres/query", json: ["facetQuery": "com"])
        #expect(facets.status == 200)
        #expect(facets.json["exhaustiveFacetsCount"] == true)
        let first = try #require(facets.json["facetHits"]?.arrayValue?.first?.objectValue, "no facet hits: \(facets.text)")
        #expect(first["value"] == "Comedy")
        #expect(first["highlighted"] == "<em>Com</em>edy")
        // InstantSearch's tags are honoured, on this endpoint and in /queries' facet entries,
        // and every matched word prefix is marked.
        let tagged = try http.request(
            "POST", "/1/indexes/movies/facets/genres/query",
            json: [
                "facetQuery": "sci fi", "highlightPreTag": "__ais-highlight__", "highlightPostTag": "__/ais-highlight__",
            ])
        #expect(
            tagged.json["facetHits"]?.arrayValue?.first?.objectValue?["highlighted"]
                == "__ais-highlight__Sci__/ais-highlight__ence __ais-highlight__Fi__/ais-highlight__ction", "\(tagged.text)")
        let entry = try http.request(
            "POST", "/1/indexes/*/queries",
            json: [
                "requests": [
                    [
                        "indexName": "movies", "type": "facet", "facet": "genres",
                        "params": "facetQuery=dra&highlightPreTag=%3Cmark%3E&highlightPostTag=%3C%2Fmark%3E&maxFacetHits=1",
                    ]
                ]
            ])
        #expect(
            entry.json["results"]?.arrayValue?.first?.objectValue?["facetHits"]?.arrayValue?.first?.objectValue?["highlighted"]
                == "<mark>Dra</mark>ma", "\(entry.text)")
        // An object by id, the same object among several, and a missing one.
        let search = try http.request("POST", "/1/indexes/movies/query", json: ["query": "alien", "hitsPerPage": 1])
        let hit = try #require(search.json["hits"]?.arrayValue?.first?.objectValue, "no hit: \(search.text)")
        let id = try #require(hit["objectID"]?.stringValue, "no hit: \(search.text)")
        let object = try http.request("GET", "/1/indexes/movies/\(id)")
        #expect(object.status == 200)
        #expect(object.json["objectID"]?.stringValue == id)
        #expect(object.json["title"] == hit["title"])
        let some = try http.request("GET", "/1/indexes/movies/\(id)?attributesToRetrieve=title")
        #expect(Set(some.json.keys) == ["objectID", "title"])
        let missing = try http.request("GET", "/1/indexes/movies/no-such-object")
        #expect(missing.status == 404)
        #expect(missing.json["status"] == 404)
        let objects = try http.request(
            "POST", "/1/indexes/*/objects",
            json: [
                "requests": [
                    ["indexName": "movies", "objectID": .string(id)], ["indexName": "movies", "objectID": "no-such-object"],
                ]
            ])
        let results = try #require(objects.json["results"]?.arrayValue, "unexpected answer: \(objects.text)")
        try #require(results.count == 2, "unexpected answer: \(objects.text)")
        #expect(results[0].objectValue?["objectID"]?.stringValue == id)
        #expect(results[1] == .null)
        // The index list, with integer counts.
        let list = try http.request("GET", "/1/indexes")
        let items = try #require(list.json["items"]?.arrayValue, "no items: \(list.text)")
        let names = items.compactMap { $0.objectValue?["name"]?.stringValue }
        #expect(names == ["movies", "products"])
        #expect(items.first?.objectValue?["entries"] == 2000)
        let settings = try http.request("GET", "/1/indexes/movies/settings")
        #expect(settings.status == 200)
        #expect(settings.json["attributesForFaceting"] == ["genres", "year", "cast"])
    }

    @Test func mistakesGetAlgoliasErrorsAndTheConnectionStaysUsable() throws {
        let d = try DaemonProcess.demo(http: true)
        defer { d.stop() }
        let http = try d.http()
        let cases: [(method: String, target: String, body: String?, status: Int, code: String, mentions: String)] = [
            ("POST", "/1/indexes/*/queries", "{\"requests\": [", 400, "invalid_json", "byte"),
            ("POST", "/1/indexes/*/queries", "[1]", 400, "invalid_request", "object"),
            ("POST", "/1/indexes/*/queries", "{\"requests\": 3}", 400, "invalid_field", "requests"),
            ("POST", "/1/indexes/*/queries", "{}", 400, "missing_field", "requests"),
            ("POST", "/1/indexes/*/queries", "{\"requests\": [{\"query\": \"x\"}]}", 400, "missing_field", "indexName"),
            ("POST", "/1/indexes/nope/query", "{}", 404, "unknown_index", "nope"),
            ("POST", "/1/indexes/movies/query", "{\"hitsPerPage\": \"many\"}", 400, "invalid_field", "hitsPerPage"),
            ("POST", "/1/indexes/movies/query", "{\"filters\": \"year >\"}", 400, "invalid_filter", "filters"),
            ("DELETE", "/1/indexes/*/queries", nil, 405, "method_not_allowed", "POST"),
            ("GET", "/1/nothing/here", nil, 404, "unknown_route", "no such endpoint"),
            ("GET", "/no-such-file.js", nil, 404, "unknown_route", "no such file"),
            ("POST", "/1/indexes/movies/batch", "{\"requests\": []}", 400, "not_writable", "dataDir"),
            ("GET", "/1/indexes/movies/task/abc", nil, 400, "invalid_field", "taskID"),
        ]
        for c in cases {
            let r = try http.request(c.method, c.target, body: c.body)
            #expect(r.status == c.status, "\(c.method) \(c.target) \(c.body ?? ""): \(r.status) \(r.text)")
            #expect(r.json["status"] == .number(Double(c.status)))
            #expect(r.json["code"]?.stringValue == c.code, "\(r.text)")
            #expect(r.json["message"]?.stringValue?.contains(c.mentions) == true, "\(r.text)")
        }
        // Same connection, still answering.
        let ok = try http.request("POST", "/1/indexes/movies/query", json: ["query": "alien"])
        #expect(ok.status == 200)
        // The body is read as JSON whatever its Content-Type (browsers send text/plain).
        let plain = try http.request(
            "POST", "/1/indexes/movies/query", body: "{\"query\": \"alien\"}",
            headers: ["Content-Type": "application/x-www-form-urlencoded"])
        #expect(plain.status == 200)
        #expect(plain.json["query"] == "alien")
    }

    /// Framing a proxy in front could read otherwise is refused with 400 and the connection
    /// closed, so the bytes after it are never answered as a request of their own: two
    /// Content-Length headers that differ, and a header name with a space before its colon.
    @Test func ambiguousFramingIsRefusedAndNothingIsSmuggled() throws {
        let d = try DaemonProcess.demo(http: true)
        defer { d.stop() }
        let smuggled = "GET /1/indexes HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        for (headers, mentions) in [
            ("Content-Length: 2\r\nContent-Length: \(2 + smuggled.utf8.count)", "Content-Length"),
            ("Content-Length : 2", "Content-Length "),
        ] {
            let http = try d.http()
            try http.sendRaw("POST /1/indexes/movies/query HTTP/1.1\r\nHost: 127.0.0.1\r\n\(headers)\r\n\r\n{}" + smuggled)
            let r = try http.readResponse()
            #expect(r.status == 400, "\(headers): \(r.text)")
            #expect(r.json["code"] == "invalid_request")
            #expect(r.json["message"]?.stringValue?.contains(mentions) == true, "\(r.text)")
            #expect(http.serverClosed(), "\(headers): the connection is closed, the smuggled request never answered")
        }
        // HTTP/1.1 must name its host, once (RFC 9112 §3.2); HTTP/1.0 need not.
        for (head, mentions) in [("HTTP/1.1\r\n", "Host"), ("HTTP/1.1\r\nHost: a\r\nHost: b\r\n", "Host")] {
            let http = try d.http()
            try http.sendRaw("GET /1/indexes \(head)\r\n" + smuggled)
            let r = try http.readResponse()
            #expect(r.status == 400, "\(head): \(r.text)")
            #expect(r.json["message"]?.stringValue?.contains(mentions) == true, "\(r.text)")
            #expect(http.serverClosed(), "\(head): the connection is closed, the request behind it never answered")
        }
        let old = try d.http()
        try old.sendRaw("GET /1/indexes HTTP/1.0\r\n\r\n")
        #expect(try old.readResponse().status == 200, "HTTP/1.0 without Host is served")
        // A chunk extension: libevent's parser refuses the body (413, its own page) and
        // closes the connection, so what follows is never read as a request.
        let chunked = try d.http()
        try chunked.sendRaw(
            "POST /1/indexes/movies/query HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "2;name=value\r\n{}\r\n0\r\n\r\n" + smuggled)
        let refused = try chunked.readResponse()
        #expect((400..<500).contains(refused.status), "\(refused.status) \(refused.text)")
        #expect(chunked.serverClosed(), "the request behind the chunked body is never answered")
        // A well-formed request on a new connection is served.
        #expect(try d.http().request("POST", "/1/indexes/movies/query", json: ["query": "alien"]).status == 200)
    }

    @Test func aBodyOverTheLimitIsRefused() throws {
        let d = try DaemonProcess.demo(http: true)
        defer { d.stop() }
        var config = try JSONParser.parse(String(contentsOfFile: d.configPath, encoding: .utf8)).objectValue ?? [:]
        config["maxLineBytes"] = 4096
        try d.rewriteConfig(config)
        try d.start()
        let http = try d.http()
        let big = String(repeating: "a", count: 5000)
        let r = try http.request("POST", "/1/indexes/movies/query", body: "{\"query\": \"\(big)\"}")
        #expect(r.status == 413)
        #expect(r.json["status"] == 413, "Algolia's error shape")
        #expect(r.json["message"]?.stringValue?.contains("4096") == true)
        // A new connection works.
        let again = try d.http().request("POST", "/1/indexes/movies/query", json: ["query": "alien"])
        #expect(again.status == 200)
    }

    @Test func unreadHTTPAnswersCountInTheDaemonsOutputBudget() throws {
        let d = try DaemonProcess.demo(limits: ["maxTotalPendingOutputBytes": .number(Double(1 << 20))], http: true)
        defer { d.stop() }
        // A client asks for a large answer (more than the kernel's socket buffers take) and does not read it.
        let slow = try HTTPTestClient(port: d.httpPort, receiveBuffer: 4096)
        let query: JSONValue = ["indexName": "movies", "query": "", "hitsPerPage": 1000]
        try slow.send("POST", "/1/indexes/*/queries", body: JSONWriter.string(["requests": .array(Array(repeating: query, count: 8))]))
        let c = try d.connect()
        let stats = try pollStats(c) { ($0["pendingOutputBytes"]?.intValue ?? 0) > 1 << 20 }
        #expect((stats?["pendingOutputBytes"]?.intValue ?? 0) > 1 << 20, "the unread answer is counted")
        // Past the budget, new work is refused for now, with a hint to come back.
        let other = try d.http()
        let busy = try other.request("POST", "/1/indexes/movies/query", json: ["query": "alien"])
        #expect(busy.status == 503)
        #expect(busy.headers["retry-after"] == "1")
        #expect(busy.json["code"] == "output_backlog")
        // Once it is read, the budget is free again.
        let answer = try slow.readResponse()
        #expect(answer.status == 200)
        #expect(answer.json["results"]?.arrayValue?.first?.objectValue?["hits"]?.arrayValue?.count == 1000)
        let after = try pollStats(c) { ($0["pendingOutputBytes"]?.intValue ?? -1) == 0 }
        #expect(after?["pendingOutputBytes"] == 0)
        #expect(try other.request("POST", "/1/indexes/movies/query", json: ["query": "alien"]).status == 200)
    }

    /// A large response goes to a client that does not read in steps: evhttp holds at most
    /// `maxPendingOutputBytes` of it (and the head), the rest stays the hits' own bytes
    /// (`streamedOutputBytes`). Read, it is the response a prompt reader gets.
    @Test func largeHTTPAnswersAreHandedOverInSteps() throws {
        let limit = 65536
        let d = try DaemonProcess.demo(limits: ["maxPendingOutputBytes": .number(Double(limit))], http: true)
        defer { d.stop() }
        let slow = try HTTPTestClient(port: d.httpPort, receiveBuffer: 4096)
        let query: JSONValue = ["indexName": "movies", "query": "", "hitsPerPage": 1000]
        let body = JSONWriter.string(["requests": .array(Array(repeating: query, count: 4))])
        try slow.send("POST", "/1/indexes/*/queries", body: body)
        let c = try d.connect()
        let held = try pollStats(c) { ($0["streamedOutputBytes"]?.intValue ?? 0) > 1 << 20 }
        let pending = held?["pendingOutputBytes"]?.intValue ?? 0
        let streamed = held?["streamedOutputBytes"]?.intValue ?? 0
        #expect(streamed > 1 << 20, "\(String(describing: held))")
        #expect(pending - streamed <= limit + 4096, "pending \(pending), streamed \(streamed)")
        let answer = try slow.readResponse()
        #expect(answer.status == 200)
        #expect(answer.headers["content-length"] == String(answer.body.count))
        let results = answer.json["results"]?.arrayValue ?? []
        #expect(results.map { $0.objectValue?["hits"]?.arrayValue?.count ?? 0 } == [1000, 1000, 1000, 1000])
        let prompt = try d.http().request("POST", "/1/indexes/*/queries", body: body)
        let expected = prompt.json["results"]?.arrayValue ?? []
        #expect(expected.count == 4)
        for (a, b) in zip(results, expected) { Self.expectSame(a.objectValue ?? [:], b.objectValue ?? [:], "results") }
        // The same keep-alive connection answers the next request.
        #expect(try slow.request("POST", "/1/indexes/movies/query", json: ["query": "alien"]).status == 200)
        let after = try pollStats(c) { $0["pendingOutputBytes"]?.intValue == 0 && $0["streamedOutputBytes"]?.intValue == 0 }
        #expect(after?["streamedOutputBytes"] == 0)
    }

    @Test func corsFollowsTheConfiguredOrigins() throws {
        let d = try DaemonProcess.demo(http: true)
        defer { d.stop() }
        var config = try JSONParser.parse(String(contentsOfFile: d.configPath, encoding: .utf8)).objectValue ?? [:]
        config["http"] = ["listen": .string("127.0.0.1:\(d.httpPort)"), "corsOrigins": ["https://app.example"]]
        try d.rewriteConfig(config)
        try d.start()
        let http = try d.http()
        let allowed = try http.request("POST", "/1/indexes/movies/query", json: ["query": "a"], headers: ["Origin": "https://app.example"])
        #expect(allowed.headers["access-control-allow-origin"] == "https://app.example")
        // A page from another origin is refused (its form or text/plain post needs no preflight).
        let other = try http.request("POST", "/1/indexes/movies/batch", json: ["requests": []], headers: ["Origin": "https://evil.example"])
        #expect(other.status == 403)
        #expect(other.headers["access-control-allow-origin"] == nil)
        #expect(other.json["message"]?.stringValue?.contains("corsOrigins") == true)
        // The listener's own pages (the dashboard) are of its origin.
        let own = try http.request(
            "POST", "/1/indexes/movies/query", json: ["query": "a"],
            headers: ["Origin": "http://127.0.0.1:\(d.httpPort)", "Host": "127.0.0.1:\(d.httpPort)"])
        #expect(own.status == 200)
        // On a loopback listener, a Host that is not a loopback name (a DNS rebinding page) is refused.
        let rebound = try http.request(
            "POST", "/1/indexes/movies/query", json: ["query": "a"], headers: ["Host": "attacker.example:\(d.httpPort)"])
        #expect(rebound.status == 403)
        let preflight = try http.request(
            "OPTIONS", "/1/indexes/*/queries",
            headers: [
                "Origin": "https://app.example", "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type,x-algolia-api-key",
            ])
        #expect(preflight.status == 204)
        #expect(preflight.headers["access-control-allow-methods"]?.contains("POST") == true)
        #expect(preflight.headers["access-control-allow-headers"] == "content-type,x-algolia-api-key")
    }
}
