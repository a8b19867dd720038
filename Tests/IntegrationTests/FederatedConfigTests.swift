import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// `Configs/federated.json` as the README runs it: products from its own embedded index,
/// movies from the demo daemon (`Configs/fedsearchd.json`) through the `fedsearchd` backend.
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

    @Test func productsLocalAndMoviesFromTheDemoDaemon() throws {
        let demo = try DaemonProcess(config: try Self.load("fedsearchd.json"))
        defer { demo.stop() }
        let federated = try DaemonProcess(config: try Self.load("federated.json") { s in
            guard case .object(var movies)? = s["movies"] else { return }
            movies["socket"] = .string(demo.socketPath)
            s["movies"] = .object(movies)
        })
        defer { federated.stop() }
        let frames = try federated.connect().roundTrip([
            "id": "q", "query": "star wars", "indices": ["movies", "products"], "params": ["hitsPerPage": 3],
        ])
        guard case .done(_, let status, let sources, _)? = frames.last else { Issue.record("no done: \(frames)"); return }
        #expect(status == .ok)
        #expect(sources.map(\.name) == ["movies", "products"])
        let movies = frames.compactMap { f -> SearchResults? in
            if case .results(_, "movies", let r) = f { return r }
            return nil
        }
        #expect(movies.first?.hits.first?.attributes["title"]?.stringValue?.hasPrefix("Star Wars") == true)
        #expect(frames.contains { if case .merged = $0 { return true } else { return false } })
    }
}
