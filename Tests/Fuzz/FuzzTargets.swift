import Dispatch
import FederatedSearchCore
import FederatedSearchDaemon
import FederatedSearchServer
import FederatedSearchEngine
import FederatedSearchProtocol
import Foundation
import Synchronization

/// The fuzz targets (see main.swift). Each takes one input and returns normally unless the
/// code under test traps or its answer breaks the protocol.
enum FuzzTargets {
    /// The target chosen by FEDSEARCH_FUZZ_TARGET, or nil for an unknown name.
    static let selected: (@Sendable ([UInt8]) -> Void)? = {
        switch ProcessInfo.processInfo.environment["FEDSEARCH_FUZZ_TARGET"] ?? "request" {
        case "request":
            _ = demoCatalog  // built before the first input, not timed as part of it
            return request
        case "documents": return documents
        case "config": return config
        case "settings": return settings
        case "writes":
            atexit { WritableCatalog.shared.removeAll() }
            return writes
        case "http":
            _ = demoCatalog
            return http
        case "frames": return frames
        default: return nil
        }
    }()

    /// The demo catalog (Configs/fedsearchd.json, or FEDSEARCH_FUZZ_CONFIG), built once.
    static let demoCatalog: Catalog = {
        let path = ProcessInfo.processInfo.environment["FEDSEARCH_FUZZ_CONFIG"] ?? "Configs/fedsearchd.json"
        guard let bytes = FileManager.default.contents(atPath: path) else { fatalError("fedsearch-fuzz: cannot read \(path)") }
        do {
            let folder = (path as NSString).deletingLastPathComponent
            let config = try DaemonConfig.parse([UInt8](bytes), baseDirectory: folder.isEmpty ? "." : folder)
            return try Catalog.build(config, registry: .standard)
        } catch {
            fatalError("fedsearch-fuzz: \(path): \(error)")
        }
    }()

    /// Runs an async body to its end from the fuzzer's synchronous callback.
    static func blocking(_ body: @escaping @Sendable () async -> Void) {
        let finished = DispatchSemaphore(value: 0)
        Task {
            await body()
            finished.signal()
        }
        finished.wait()
    }

    /// Answers one request line through the daemon's request path; every frame of the answer
    /// must be one line of valid JSON.
    static func answerChecked(_ line: [UInt8], catalog: Catalog) async {
        for frame in await RequestReplay.answer(line, catalog: catalog) {
            guard frame.last == 0x0A, !frame.dropLast().contains(0x0A),
                (try? JSONParser.parse(Array(frame.dropLast()))) != nil
            else { fatalError("a frame that is not one line of JSON: \(String(decoding: frame, as: UTF8.self))") }
        }
    }

    /// One request line through the daemon's request path (see ``answerChecked(_:catalog:)``).
    static func request(_ bytes: [UInt8]) {
        let catalog = demoCatalog
        blocking { await answerChecked(bytes, catalog: catalog) }
    }

    /// Settings that reach every analysis path: ordered and unordered attributes, facets
    /// (searchable ones too), a numeric custom ranking.
    static let documentSettings: IndexSettings = {
        do {
            return try IndexSettings.decode(
                [
                    "searchableAttributes": ["title", "unordered(body)", "tags"],
                    "attributesForFaceting": ["tags", "price", "searchable(brand)"],
                    "customRanking": ["desc(price)"],
                ], path: "settings")
        } catch { fatalError("fedsearch-fuzz: \(error)") }
    }()

    /// NDJSON documents indexed, then searched with words of their titles (whole, as
    /// prefixes, with facets, highlights, snippets and ranking information).
    static func documents(_ bytes: [UInt8]) {
        var documents: [JSONObject] = []
        var words: [String] = []
        for (n, line) in bytes.split(separator: 0x0A).enumerated() {
            guard case .object(var object)? = try? JSONParser.parse(Array(line)) else { continue }
            if object["objectID"] == nil { object["objectID"] = .string(String(n)) }
            documents.append(object)
            if case .string(let s)? = object["title"] { words += s.split(separator: " ").prefix(3).map(String.init) }
        }
        guard let index = try? EmbeddedIndex(name: "fuzz", settings: documentSettings, documents: documents) else { return }
        let queries = [""] + words.prefix(4) + [words.prefix(2).joined(separator: " "), String(words.first?.dropLast() ?? "")]
        guard
            let params = try? SearchParameters.decode([
                "facets": ["*"], "attributesToHighlight": ["*"], "attributesToSnippet": ["body:5"], "getRankingInfo": true,
            ])
        else { fatalError("fedsearch-fuzz: the documents target's parameters do not decode") }
        for text in queries {
            _ = try? index.searchInline(SearchQuery(text: text, parameters: params))
        }
    }

    /// Documents for the settings target: the fields settings may name, of every type.
    static let settingsDocuments: [JSONObject] = {
        let lines = [
            #"{"objectID":"1","title":"Wireless headphones","body":"noise cancelling, over-ear","tags":["audio","sale"],"price":199.5,"brand":"Sony","year":2020,"_geoloc":{"lat":48.85,"lng":2.35}}"#,
            #"{"objectID":"2","title":"Headphone stand","body":"wooden","tags":"audio","price":20,"brand":"Acme","year":2018}"#,
            #"{"objectID":"3","title":["Speaker","Enceinte"],"body":{"en":"loud","fr":"fort"},"price":"12","brand":null,"year":-1}"#,
            #"{"objectID":"4","title":"the a of","tags":[],"price":true}"#,
        ]
        return lines.compactMap { try? JSONParser.parse($0).objectValue }
    }()

    /// Index settings as a client sends them (`createIndex`, `setSettings`): decoded, and if
    /// valid an index built with them and searched (typos, prefixes, facets, filters,
    /// highlights, distinct, geo).
    static func settings(_ bytes: [UInt8]) {
        guard case .object(let object)? = try? JSONParser.parse(bytes),
            let decoded = try? IndexSettings.decode(object, path: "settings"),
            let index = try? EmbeddedIndex(name: "fuzz", settings: decoded, documents: settingsDocuments)
        else { return }
        let parameters: [JSONObject] = [
            ["facets": ["*"], "attributesToHighlight": ["*"], "attributesToSnippet": ["*:3"], "getRankingInfo": true],
            ["filters": "price > 10 AND tags:audio", "distinct": true, "aroundLatLng": "48.8, 2.3"],
            ["matchingStrategy": "any", "hitsPerPage": 1, "getRankingInfo": true],
        ]
        for text in ["", "headphone", "wireles head", "the", "sony"] {
            for p in parameters {
                guard let params = try? SearchParameters.decode(p) else { continue }
                _ = try? index.searchInline(SearchQuery(text: text, parameters: params))
            }
        }
    }

    /// NDJSON request lines, in order, against a durable index (writes, reads of documents and
    /// settings, searches); every frame must be one line of valid JSON. The index lives in a
    /// temporary folder (in /dev/shm when there is one, so SQLite's syncs cost little) and is
    /// made afresh every few hundred inputs, so it does not grow without end.
    static func writes(_ bytes: [UInt8]) {
        let catalog = WritableCatalog.shared.next()
        let lines = bytes.split(separator: 0x0A).prefix(16).map { Array($0) }
        blocking {
            for line in lines { await answerChecked(line, catalog: catalog) }
        }
    }

    /// A daemon config, parsed and validated (its data files are not read).
    static func config(_ bytes: [UInt8]) {
        _ = try? DaemonConfig.parse(bytes, baseDirectory: "/nonexistent")
    }
}

/// libFuzzer's per-input entry point, for a link where libFuzzer's own `main` runs (see
/// main.swift): the same callback as the driver's.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    // The bytes are valid for `count` during the call; they are copied before anything reads them.
    FuzzTargets.selected?(data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [])
    return 0
}

/// The writes target's catalog: one durable index, `notes`, open to anyone for writes, in a
/// temporary folder replaced every `inputsPerCatalog` inputs.
final class WritableCatalog: Sendable {
    static let shared = WritableCatalog()
    static let inputsPerCatalog = 300

    private struct State {
        var catalog: Catalog?
        var folder: String?
        var inputs = 0
        var made = 0
    }
    private let state = Mutex(State())

    /// The catalog for the next input (a fresh one when the current has served its share).
    func next() -> Catalog {
        state.withLock { s in
            if let catalog = s.catalog, s.inputs < Self.inputsPerCatalog {
                s.inputs += 1
                return catalog
            }
            if let old = s.folder { try? FileManager.default.removeItem(atPath: old) }
            s.made += 1
            let base = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : NSTemporaryDirectory()
            let folder = "\(base)/fedsearch-fuzz-\(getpid())-\(s.made)"
            let catalog = Self.make(in: folder)
            s = State(catalog: catalog, folder: folder, inputs: 1, made: s.made)
            return catalog
        }
    }

    func removeAll() {
        state.withLock { s in if let f = s.folder { try? FileManager.default.removeItem(atPath: f) } }
    }

    private static func make(in folder: String) -> Catalog {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let data = [
                #"{"objectID":"n1","title":"Wireless headphones","body":"noise cancelling","tags":["audio"],"price":199.5}"#,
                #"{"objectID":"n2","title":"Headphone stand","body":"wooden","tags":["audio","desk"],"price":20}"#,
                #"{"objectID":"n3","title":"Desk lamp","body":{"en":"bright"},"tags":"desk","price":35}"#,
            ].joined(separator: "\n")
            try Data(data.utf8).write(to: URL(fileURLWithPath: "\(folder)/notes.ndjson"))
            let config = #"""
                {"dataDir": "data", "searchables": {"notes": {"data": "notes.ndjson",
                 "searchableAttributes": ["title", "unordered(body)", "tags"], "attributesForFaceting": ["tags", "price"],
                 "access": {"search": ["*"], "write": ["*"]}}}}
                """#
            return try Catalog.build(DaemonConfig.parse(Array(config.utf8), baseDirectory: folder), registry: .standard)
        } catch {
            fatalError("fedsearch-fuzz: the writes target's catalog: \(error)")
        }
    }
}
