#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchClient
import FederatedSearchCore
import SocketTestClient

/// Measures what server-side cancellation of superseded keystrokes saves: the daemon's CPU
/// time for typing sequences sent a few milliseconds apart, once in a session (each keystroke supersedes
/// the previous) and once without.
enum KeystrokeBench {
    /// CPU time of a process so far, in milliseconds: the sum over its threads of
    /// /proc/PID/task/TID/schedstat (nanoseconds; /proc/PID/stat counts 10 ms ticks, too
    /// coarse for a few hundred keystrokes). Threads that have exited are not counted; the
    /// daemon's loop and pool threads live as long as it does.
    static func cpuMilliseconds(pid: Int32) -> Double {
        guard let dir = opendir("/proc/\(pid)/task") else { return 0 }
        defer { closedir(dir) }
        var total = 0.0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let tid = Int(name), let f = fopen("/proc/\(pid)/task/\(tid)/schedstat", "r") else { continue }
            var buf = [CChar](repeating: 0, count: 256)
            if fgets(&buf, Int32(buf.count), f) != nil {
                let line = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if let first = line.split(separator: " ").first, let ns = Double(first) { total += ns / 1e6 }
            }
            fclose(f)
        }
        return total
    }

    /// Types each word's prefixes `intervalMicros` apart and waits for every answer; returns
    /// the daemon's CPU milliseconds spent and how many requests a later keystroke superseded.
    static func run(
        socket: String, daemonPID: Int32, words: [String], indices: [String], session: Bool, intervalMicros: UInt32
    ) throws -> (cpuMs: Double, superseded: Int) {
        let c = try SocketConnection(path: socket, timeoutSeconds: 30)
        let before = cpuMilliseconds(pid: daemonPID)
        var seq = 0
        var superseded = 0
        for (w, word) in words.enumerated() {
            let letters = Array(word)
            var ids: [String] = []
            for n in 1...letters.count {
                seq += 1
                let id = "k\(seq)"
                ids.append(id)
                var request: JSONObject = [
                    "id": .string(id), "query": .string(String(letters[0..<n])),
                    "indices": .array(indices.map { .string($0) }), "params": ["hitsPerPage": 10, "facets": ["*"]],
                ]
                if session {
                    request["session"] = .string("typing-\(w)")
                    request["seq"] = .number(Double(seq))
                }
                try c.send(.object(request))
                usleep(intervalMicros)
            }
            // Every request ends with a done frame (ok or superseded).
            var open = Set(ids)
            while !open.isEmpty, let line = try c.readLine() {
                if let done = try? FrameDecoderLite.done(line) {
                    open.remove(done.id)
                    if done.status == "superseded" { superseded += 1 }
                }
            }
        }
        return (cpuMilliseconds(pid: daemonPID) - before, superseded)
    }
}

/// The id and status of a `done` frame, without decoding other long lines.
enum FrameDecoderLite {
    static func done(_ line: [UInt8]) throws -> (id: String, status: String)? {
        guard line.count < 4096 || contains(line.prefix(64), Array(#""type":"done""#.utf8)) else { return nil }
        guard case .object(let o) = try JSONParser.parse(line), o["type"] == "done", let id = o["id"]?.stringValue
        else { return nil }
        return (id, o["status"]?.stringValue ?? "")
    }
}
