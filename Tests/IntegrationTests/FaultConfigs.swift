import DaemonTestSupport
import FederatedSearchCore

/// Configs for the fault-injecting daemon: named sources with delays and failure modes.
enum FaultConfigs {
    /// A `test.fault` searchable.
    static func source(delayMs: Int = 0, mode: String = "ok", hits: Int = 3, score: Double = 0.5) -> JSONValue {
        [
            "backend": "test.fault", "delayMs": .number(Double(delayMs)), "mode": .string(mode),
            "hits": .number(Double(hits)), "score": .number(score),
        ]
    }

    static func config(_ sources: [(String, JSONValue)], defaultTimeoutMs: Int = 5000) -> JSONObject {
        JSONObject([
            ("defaultTimeoutMs", .number(Double(defaultTimeoutMs))),
            ("searchables", .object(JSONObject(sources))),
        ])
    }
}
