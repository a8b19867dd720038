import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// Each kind of bad input gets its documented error code, and the same connection still
/// answers `ping` afterwards (except an over-long line, which closes the connection).
@Suite(.serialized)
struct BadInputTests {
    static let cases: [(line: String, code: String, mentions: String)] = [
        ("this is not json", "invalid_json", "byte"),
        ("[1,2,3]", "invalid_request", "object"),
        ("{\"id\":\"u\",\"op\":\"explode\"}", "unknown_op", "explode"),
        ("{\"id\":\"m\",\"op\":\"cancel\"}", "missing_field", "target"),
        ("{\"id\":\"t\",\"query\":\"x\",\"params\":{\"hitsPerPage\":\"ten\"}}", "invalid_field", "params.hitsPerPage"),
        ("{\"id\":\"t\",\"query\":42}", "invalid_field", "query"),
        ("{\"id\":\"k\",\"query\":\"x\",\"params\":{\"hitsPerPag\":5}}", "unknown_field", "params.hitsPerPag"),
        ("{\"id\":\"i\",\"query\":\"x\",\"indices\":[\"nope\"]}", "unknown_index", "nope"),
        ("{\"id\":\"f\",\"query\":\"x\",\"params\":{\"filters\":\"genres:Drama AND (year > \"}}", "invalid_filter", "position"),
        ("{\"id\":\"f\",\"query\":\"x\",\"params\":{\"numericFilters\":[\"year >> 3\"]}}", "invalid_filter", "numericFilters[0]"),
        ("{\"id\":\"b\",\"query\":\"x\",\"params\":{\"page\":-1}}", "invalid_field", "params.page"),
    ]

    @Test func eachBadInputGetsItsCodeAndTheConnectionKeepsWorking() throws {
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: FaultConfigs.config([("s", FaultConfigs.source())]))
        defer { d.stop() }
        let c = try d.connect()
        for (n, t) in Self.cases.enumerated() {
            try c.sendRaw(Array((t.line + "\n").utf8))
            let frame = try c.readFrame()
            guard case .error(_, nil, let e)? = frame else {
                Issue.record("case \(n) \(t.line): expected an error frame, got \(String(describing: frame))")
                continue
            }
            #expect(e.code.rawValue == t.code, "case \(n): \(t.line)")
            #expect(e.message.contains(t.mentions), "case \(n): message '\(e.message)' should name \(t.mentions)")
            let pong = try c.roundTrip(["id": .string("p\(n)"), "op": "ping"])
            #expect(pong.first?.type == "pong")
        }
    }

    @Test func errorFramesEchoTheRequestID() throws {
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: FaultConfigs.config([("s", FaultConfigs.source())]))
        defer { d.stop() }
        let frames = try d.connect().roundTrip(["id": "mine", "query": "x", "indices": ["missing"]])
        #expect(frames.first?.id == "mine")
        #expect(errorCode(frames.first) == "unknown_index")
    }

    @Test func invalidUTF8IsRefused() throws {
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: FaultConfigs.config([("s", FaultConfigs.source())]))
        defer { d.stop() }
        let c = try d.connect()
        try c.sendRaw(Array("{\"id\":\"x\",\"query\":\"".utf8) + [0xFF, 0xFE] + Array("\"}\n".utf8))
        #expect(errorCode(try c.readFrame()) == "invalid_utf8")
        #expect(try c.roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
    }

    /// A filter nested 20,000 deep (40 KB, under the line limit) overflowed the parser's
    /// stack and killed the daemon; it gets `invalid_filter` and the connection keeps working.
    @Test func deeplyNestedFilterIsRefusedAndTheDaemonSurvives() throws {
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: FaultConfigs.config([("s", FaultConfigs.source())]))
        defer { d.stop() }
        let c = try d.connect()
        for filter in [
            String(repeating: "(", count: 20_000) + "a:b" + String(repeating: ")", count: 20_000),
            String(repeating: "NOT ", count: 10_000) + "a:b",
        ] {
            let frames = try c.roundTrip(["id": "deep", "query": "x", "params": ["filters": .string(filter)]])
            #expect(errorCode(frames.first) == "invalid_filter")
            #expect(try c.roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
        }
        #expect(d.process.isRunning)
    }

    @Test func overLongLineGetsAnErrorThenTheConnectionCloses() throws {
        var config = FaultConfigs.config([("s", FaultConfigs.source())])
        config["maxLineBytes"] = 4096
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: config)
        defer { d.stop() }
        let c = try d.connect()
        try c.sendRaw(Array("{\"query\":\"".utf8) + Array(repeating: UInt8(ascii: "a"), count: 10_000))
        #expect(errorCode(try c.readFrame()) == "line_too_long")
        #expect(try c.readLine() == nil)
        // The daemon is fine and serves new connections.
        #expect(try d.connect().roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
    }

    @Test func randomGarbageNeverKillsTheDaemon() throws {
        let d = try DaemonProcess(binary: "fedsearchd-faults", config: FaultConfigs.config([("s", FaultConfigs.source())]))
        defer { d.stop() }
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("{}[]\":,0123456789.eE-+ tfnrul\\abcxyz\u{00e9}".utf8)
        for _ in 0..<30 {
            let c = try d.connect()
            var garbage: [UInt8] = []
            for _ in 0..<200 {
                garbage.append(Bool.random(using: &rng) ? alphabet.randomElement(using: &rng)! : UInt8.random(in: 0...255, using: &rng))
            }
            garbage.removeAll { $0 == 0x0A }
            try c.sendRaw(garbage + [0x0A])
            let f = try c.readFrame()
            #expect(f?.type == "error" || f?.type == "results" || f?.type == "pong" || f?.type == "done")
        }
        #expect(d.process.isRunning)
        #expect(try d.connect().roundTrip(["id": "p", "op": "ping"]).first?.type == "pong")
    }
}
