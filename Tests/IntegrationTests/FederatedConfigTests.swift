import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// `Configs/federated.json`: products from the embedded index, movies from PostgreSQL, a shop
/// from Typesense (scripts/federated-demo.sh runs it for real; the postgres and typesense
/// suites test those kinds against real servers). Here: the config is valid as shipped, and the
/// same products index federates another daemon's movies through the `fedsearchd` backend.
@Suite(.serialized)
struct FederatedConfigTests {
    static let configs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Configs")

    /// The config file with data paths made absolute and `edit` applied to its searchables.
    static func load(_ name: String, _ edit: (inout JSONObject) -> Void = { _ in }) throws -> JSONObject {
        let text = try String(contentsOf: configs.appendingPathComponent(name), encoding: .utf8)
        guard case .object(var config) = try JSONParser.parse(text), case .object(var searchables)? = config["searchables"]
        else { throw DaemonProcess.DaemonError(description: "\(name) is not a config object") }
        for key in searchables.keys {
            guard case .object(var s)? = searchables[key] else { continue }
            if case .string(let data)? = s["data"] { s["data"] = .string(configs.appendingPathComponent(data).path) }
            searchables[key] = .object(s)
        }
        edit(&searchables)
        config["searchables"] = .object(searchables)
        return config
    }

    /// `config` with 10 s deadlines: the shipped ones (500-1000 ms) suit a release build on a
    /// quiet machine, not a debug build on a loaded one, and the test is not about deadlines.
    static func patient(_ config: JSONObject) -> JSONObject {
        var config = config
        config["defaultTimeoutMs"] = 10_000
        guard case .object(var searchables)? = config["searchables"] else { return config }
        for key in searchables.keys {
            guard case .object(var s)? = searchables[key] else { continue }
            s["timeoutMs"] = 10_000
            searchables[key] = .object(s)
        }
        config["searchables"] = .object(searchables)
        return config
    }

    @Test func productsLocalAndMoviesFromTheDemoDaemon() throws {
        let demo = try DaemonProcess(config: Self.patient(try Self.load("fedsearchd.json")))
        defer { demo.stop() }
        let federated = try DaemonProcess(
            config: Self.patient(
                try Self.load("federated.json") { s in
                    s["movies"] = ["backend": "fedsearchd", "socket": .string(demo.socketPath), "index": "movies"]
                    s["shop"] = nil
                }))
        defer { federated.stop() }
        let frames = try federated.connect().roundTrip([
            "id": "q", "query": "star wars", "indices": ["movies", "products"], "params": ["hitsPerPage": 3],
        ])
        let (status, sources) = try #require(frames.last?.doneValue, "no done: \(frames)")
        #expect(status == .ok)
        #expect(sources.map(\.name) == ["movies", "products"])
        let movies = frames.compactMap { f -> SearchResults? in
            if case .results(_, "movies", let r) = f { return r }
            return nil
        }
        #expect(movies.first?.hits.first?.attributes["title"]?.stringValue?.hasPrefix("Star Wars") == true)
        #expect(frames.contains { if case .merged = $0 { return true } else { return false } })
    }

    @Test func theShippedConfigIsValid() throws {
        let dir = try DaemonProcess.makeDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("federated.json").path
        try JSONWriter.string(.object(try Self.load("federated.json"))).write(toFile: path, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = DaemonProcess.binDirectory.appendingPathComponent("fedsearchd")
        p.arguments = ["--check-config", path]
        p.environment = ProcessInfo.processInfo.environment.merging(["TYPESENSE_API_KEY": "check"]) { $1 }
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(errors)")
        #expect(text.contains("movies: postgres"))
        #expect(text.contains("shop: typesense"))
    }
}
