import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// Algolia's write endpoints and API keys over the daemon's HTTP listener, on a durable index.
@Suite(.serialized)
struct HTTPWriteTests {
    static let books = """
        {"objectID":"b1","title":"The Hobbit","genre":"fantasy"}
        {"objectID":"b2","title":"Dune","genre":"science fiction"}
        """

    static func daemon(keys: [JSONValue] = [], environment: [String: String] = [:], files: [String: String] = [:]) throws -> DaemonProcess {
        let dir = try DaemonProcess.makeDirectory()
        var http: JSONObject = ["listen": .string("127.0.0.1:\(try freeTCPPort())")]
        if !keys.isEmpty { http["keys"] = .array(keys) }
        var all = files
        all["books.ndjson"] = books
        return try DaemonProcess(
            config: [
                "dataDir": .string(dir.appendingPathComponent("data").path), "http": .object(http),
                "searchables": [
                    "books": ["data": "books.ndjson", "searchableAttributes": ["title"], "attributesForFaceting": ["genre"]],
                    "shelf": ["data": "books.ndjson", "searchableAttributes": ["title"]],
                ],
            ], files: all, environment: environment)
    }

    static func ids(_ http: HTTPTestClient, _ query: String, headers: [String: String] = [:]) throws -> [String] {
        let r = try http.request("POST", "/1/indexes/books/query", json: ["query": .string(query)], headers: headers)
        return (r.json["hits"]?.arrayValue ?? []).compactMap { $0.objectValue?["objectID"]?.stringValue }.sorted()
    }

    @Test func writesAnswerATaskThatIsPublishedAndSearchable() throws {
        let d = try Self.daemon()
        defer { d.stop() }
        let http = try d.http()
        func listed() throws -> JSONObject {
            let items = try http.request("GET", "/1/indexes").json["items"]?.arrayValue ?? []
            return items.compactMap(\.objectValue).first { $0["name"] == "books" } ?? [:]
        }
        let before = try listed()
        #expect(before["entries"] == 2)
        #expect(
            (before["dataSize"]?.numberValue ?? 0) > 0 && (before["fileSize"]?.numberValue ?? 0) >= (before["dataSize"]?.numberValue ?? 0))
        Thread.sleep(forTimeInterval: 0.01)  // the clock moves on, so updatedAt can differ below
        let batch = try http.request(
            "POST", "/1/indexes/books/batch",
            json: [
                "requests": [
                    ["action": "addObject", "body": ["objectID": "b3", "title": "Hobbit Holes", "genre": "fantasy"]],
                    ["action": "partialUpdateObject", "body": ["objectID": "b2", "title": "Dune Messiah"]],
                    ["action": "deleteObject", "body": ["objectID": "b1"]],
                ]
            ])
        #expect(batch.status == 200, "\(batch.text)")
        #expect(batch.json["objectIDs"] == ["b3", "b2", "b1"])
        let task = try #require(batch.json["taskID"]?.numberValue, "no taskID: \(batch.text)")
        #expect(task == task.rounded() && task > 0)
        let status = try http.request("GET", "/1/indexes/books/task/\(Int(task))")
        #expect(status.json["status"] == "published")
        #expect(try Self.ids(http, "") == ["b2", "b3"])
        #expect(try http.request("GET", "/1/indexes/books/b2").json["genre"] == "science fiction", "a partial update keeps the rest")
        // The index list follows the index: its count and its time of last update.
        let after = try listed()
        #expect(after["entries"] == 2)
        #expect(after["updatedAt"] != before["updatedAt"], "\(before) \(after)")
        #expect(after["pendingTask"] == false && after["lastBuildTimeS"]?.numberValue != nil)
        // One object at a time: a new one with the daemon's id, a replacement, a partial update, a delete.
        let added = try http.request("POST", "/1/indexes/books", json: ["title": "Silmarillion", "genre": "fantasy"])
        #expect(added.status == 200)
        let newID = added.json["objectID"]?.stringValue ?? ""
        #expect(!newID.isEmpty && added.json["createdAt"]?.stringValue != nil)
        #expect(try Self.ids(http, "silmarillion") == [newID])
        let replaced = try http.request("PUT", "/1/indexes/books/b3", json: ["title": "Holes"])
        #expect(replaced.json["updatedAt"]?.stringValue != nil && replaced.json["objectID"] == "b3")
        #expect(try http.request("GET", "/1/indexes/books/b3").json == ["objectID": "b3", "title": "Holes"])
        _ = try http.request("POST", "/1/indexes/books/b3/partial", json: ["genre": "mystery"])
        #expect(try http.request("GET", "/1/indexes/books/b3").json["genre"] == "mystery")
        let deleted = try http.request("DELETE", "/1/indexes/books/\(newID)")
        #expect(deleted.json["deletedAt"]?.stringValue != nil)
        #expect(try http.request("GET", "/1/indexes/books/\(newID)").status == 404)
        // deleteByQuery, settings, clear.
        let byQuery = try http.request("POST", "/1/indexes/books/deleteByQuery", json: ["filters": "genre:mystery"])
        #expect(byQuery.status == 200, "\(byQuery.text)")
        #expect(try Self.ids(http, "") == ["b2"])
        let settings = try http.request("PUT", "/1/indexes/books/settings", json: ["customRanking": ["asc(title)"]])
        #expect(settings.status == 200, "\(settings.text)")
        #expect(try http.request("GET", "/1/indexes/books/settings").json["customRanking"] == ["asc(title)"])
        let cleared = try http.request("POST", "/1/indexes/books/clear")
        let last = try #require(cleared.json["taskID"]?.numberValue, "no taskID: \(cleared.text)")
        #expect(last > task)
        #expect(try Self.ids(http, "").isEmpty)
        // A task never given is not published.
        #expect(try http.request("GET", "/1/indexes/books/task/\(Int(last) + 100)").status == 404)
    }

    /// Algolia's settings are accepted, stored and echoed (across a restart); those that are
    /// search parameters apply as the index's defaults, under a request's own values; a
    /// misspelt name or a bad value is refused, naming it.
    @Test func algoliaSettingsAreStoredEchoedAndAppliedAsQueryDefaults() throws {
        let d = try Self.daemon()
        defer { d.stop() }
        var http = try d.http()
        let settings: JSONObject = [
            "hitsPerPage": 1, "attributesToHighlight": ["genre"], "attributesToSnippet": ["title:2"], "attributesToRetrieve": ["title"],
            "maxValuesPerFacet": 5, "indexLanguages": ["en"], "renderingContent": ["facetOrdering": ["facets": ["order": ["genre"]]]],
            "replicas": [], "highlightPreTag": "<b>", "highlightPostTag": "</b>", "queryLanguages": ["en"], "enableRules": true,
            "numericAttributesForFiltering": ["year"], "userData": ["team": "search"],
        ]
        let set = try http.request("PUT", "/1/indexes/books/settings", json: .object(settings))
        #expect(set.status == 200, "\(set.text)")
        func check(_ http: HTTPTestClient) throws {
            let echoed = try http.request("GET", "/1/indexes/books/settings").json
            for e in settings { #expect(echoed[e.key] == e.value, "\(e.key): \(echoed)") }
            // With parameters the daemon ignores, as InstantSearch sends them.
            let r = try http.request("POST", "/1/indexes/books/query", json: ["query": "dune", "analytics": false, "clickAnalytics": true])
            #expect(r.status == 200, "\(r.text)")
            #expect(r.json["hitsPerPage"] == 1)
            let hit = try #require(r.json["hits"]?.arrayValue?.first?.objectValue, "\(r.text)")
            #expect(hit["genre"] == nil, "attributesToRetrieve: title only")
            #expect(hit["_highlightResult"]?.objectValue?.keys.contains("genre") == true)
            #expect(
                hit["_snippetResult"]?.objectValue?["title"]?.objectValue?["value"]?.stringValue?.contains("<b>Dune</b>") == true, "\(hit)")
            let own = try http.request(
                "POST", "/1/indexes/books/query", json: ["query": "", "hitsPerPage": 2, "attributesToRetrieve": ["*"]])
            #expect(own.json["hitsPerPage"] == 2)
            #expect(own.json["hits"]?.arrayValue?.first?.objectValue?["genre"] != nil)
        }
        try check(http)
        d.halt()
        try d.start()
        http = try d.http()
        try check(http)
        for (body, mentions) in [(["hitsPerPag": 3] as JSONObject, "hitsPerPag"), (["hitsPerPage": "many"], "hitsPerPage")] {
            let bad = try http.request("PUT", "/1/indexes/books/settings", json: .object(body))
            #expect(bad.status == 400, "\(bad.text)")
            #expect(bad.json["message"]?.stringValue?.contains(mentions) == true, "\(bad.text)")
        }
    }

    @Test func aBadBatchIsRefusedWholeWithEveryProblem() throws {
        let d = try Self.daemon()
        defer { d.stop() }
        let http = try d.http()
        let r = try http.request(
            "POST", "/1/indexes/books/batch",
            json: [
                "requests": [
                    ["action": "addObject", "body": ["objectID": "b9", "title": "Fine"]],
                    ["action": "updateObject", "body": ["title": "no id"]],
                    ["action": "shred", "body": [:]],
                ]
            ])
        #expect(r.status == 400)
        #expect(r.json["code"] == "invalid_document")
        let message = r.json["message"]?.stringValue ?? ""
        #expect(message.contains("requests[1].body: objectID is missing"), "\(message)")
        #expect(message.contains("requests[2].action"), "\(message)")
        #expect(try Self.ids(http, "") == ["b1", "b2"], "nothing was written")
        // A body that is not an object, and Algolia's built-in operations, are refused too.
        let notObject = try http.request("POST", "/1/indexes/books/batch", json: ["requests": [["action": "addObject", "body": "x"]]])
        #expect(notObject.status == 400)
        #expect(notObject.json["message"]?.stringValue?.contains("requests[0].body: expected an object") == true)
        let operation = try http.request("POST", "/1/indexes/books/b1/partial", json: ["copies": ["_operation": "Increment", "value": 1]])
        #expect(operation.status == 400)
        #expect(operation.json["message"]?.stringValue?.contains("body.copies") == true)
        #expect(try Self.ids(http, "") == ["b1", "b2"], "nothing was written")
    }

    @Test func updatesThatMustNotCreateDoNot() throws {
        let d = try Self.daemon()
        defer { d.stop() }
        let http = try d.http()
        let batch = try http.request(
            "POST", "/1/indexes/books/batch",
            json: [
                "requests": [
                    ["action": "partialUpdateObjectNoCreate", "body": ["objectID": "b9", "title": "Ghost"]],
                    ["action": "partialUpdateObjectNoCreate", "body": ["objectID": "b1", "genre": "classic"]],
                ]
            ])
        #expect(batch.status == 200)
        _ = try http.request("POST", "/1/indexes/books/b8/partial?createIfNotExists=false", json: ["title": "Ghost too"])
        #expect(try Self.ids(http, "") == ["b1", "b2"])
        #expect(try http.request("GET", "/1/indexes/books/b1").json["genre"] == "classic")
        _ = try http.request("POST", "/1/indexes/books/b8/partial", json: ["title": "Made"])
        #expect(try Self.ids(http, "") == ["b1", "b2", "b8"], "by default a partial update creates")
    }

    @Test func listeningBeyondLoopbackWithoutKeysIsWarnedAbout() throws {
        for keyed in [false, true] {
            let port = try freeTCPPort()
            var http: JSONObject = ["listen": .string("0.0.0.0:\(port)")]
            if keyed { http["keys"] = [["value": "k-1", "acl": ["search"]]] }
            let d = try DaemonProcess(config: ["http": .object(http), "searchables": ["a": ["searchableAttributes": ["title"]]]])
            #expect(
                try HTTPTestClient(port: port).request("GET", "/1/indexes", headers: ["X-Algolia-API-Key": "k-1"]).status
                    == (keyed ? 403 : 200), "the key has no listIndexes right")
            _ = d.stop()
            let log = String(decoding: d.stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(log.contains("no API key is configured") == !keyed, "\(log)")
        }
    }

    @Test func keysLimitWhatAndWhereAndAreNeverLogged() throws {
        let dir = try DaemonProcess.makeDirectory()
        let keyFile = dir.appendingPathComponent("admin.key").path
        try "admin-secret-42\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
        let d = try Self.daemon(
            keys: [
                ["value": ["env": "FST_SEARCH_KEY"], "acl": ["search"], "indexes": ["boo*"], "description": "search only"],
                ["value": ["file": .string(keyFile)], "acl": ["search", "addObject", "listIndexes", "settings"]],
            ], environment: ["FST_SEARCH_KEY": "search-secret-17"])
        let http = try d.http()
        let search = ["X-Algolia-API-Key": "search-secret-17", "X-Algolia-Application-Id": "any"]
        let admin = ["X-Algolia-API-Key": "admin-secret-42"]
        #expect(try http.request("POST", "/1/indexes/books/query", json: ["query": ""]).status == 403)
        let wrong = try http.request("POST", "/1/indexes/books/query", json: ["query": ""], headers: ["X-Algolia-API-Key": "nope"])
        #expect(wrong.status == 403)
        #expect(wrong.json["message"]?.stringValue?.contains("Invalid") == true)
        #expect(try Self.ids(http, "", headers: search) == ["b1", "b2"])
        // The key in the query string, as browsers send it.
        #expect(try http.request("POST", "/1/indexes/books/query?x-algolia-api-key=search-secret-17", json: ["query": ""]).status == 200)
        // Outside the key's indices, or its rights.
        #expect(try http.request("POST", "/1/indexes/shelf/query", json: ["query": ""], headers: search).status == 403)
        let multi = try http.request(
            "POST", "/1/indexes/*/queries",
            json: [
                "requests": [
                    ["indexName": "books"], ["indexName": "shelf"],
                ]
            ], headers: search)
        #expect(multi.status == 403)
        #expect(try http.request("POST", "/1/indexes/books/batch", json: ["requests": []], headers: search).status == 403)
        #expect(try http.request("GET", "/1/indexes", headers: search).status == 403)
        let list = try http.request("GET", "/1/indexes", headers: admin)
        #expect((list.json["items"]?.arrayValue ?? []).count == 2)
        #expect(try http.request("POST", "/1/indexes/books/clear", headers: admin).status == 403, "clear needs deleteIndex")
        let clearAction = try http.request("POST", "/1/indexes/books/batch", json: ["requests": [["action": "clear"]]], headers: admin)
        #expect(clearAction.status == 403, "in a batch too")
        // Tasks of an index the key may not see are not told.
        #expect(try http.request("GET", "/1/indexes/shelf/task/1", headers: search).status == 403)
        #expect(try http.request("GET", "/1/indexes/books/task/1", headers: search).json["status"] == "published")
        // A federated search without indices searches those of the key.
        let federated = try http.request("POST", "/1/federated", json: ["query": ""], headers: search)
        #expect(federated.json["results"]?.objectValue?.keys == ["books"])
        // An index the key may not use is never named to it: not in an unknown index's list of
        // names, nor as a suggestion, on any route.
        for (method, target, body) in [
            ("POST", "/1/indexes/bookz/query", "{}"), ("POST", "/1/federated", "{\"indices\": [\"bookz\"]}"),
            ("POST", "/1/indexes/*/queries", "{\"requests\": [{\"indexName\": \"bookz\"}]}"),
            ("GET", "/1/indexes/bookz/browse", nil), ("POST", "/1/indexes/bookz/facets/genre/query", "{}"),
        ] {
            let r = try http.request(method, target, body: body, headers: search)
            #expect(r.status == 404 || r.status == 403, "\(target): \(r.text)")
            #expect(!r.text.contains("shelf"), "\(target): \(r.text)")
        }
        let unknown = try http.request("POST", "/1/indexes/bookz/query", json: ["query": ""], headers: search)
        #expect(unknown.json["message"]?.stringValue?.contains("did you mean 'books'") == true, "\(unknown.text)")
        let status = d.stop()
        #expect(status == 0)
        let log = String(decoding: d.stderrPipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(!log.contains("search-secret-17") && !log.contains("admin-secret-42"))
    }
}
