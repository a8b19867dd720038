#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchClient
import FederatedSearchCore

/// Measures what server-side cancellation of superseded keystrokes saves: the daemon's CPU
/// time for typing sequences sent 5 ms apart, once in a session (each keystroke supersedes
/// the previous) and once without.
enum KeystrokeBench {
    /// CPU time (user + system) of a process so far, in milliseconds, from /proc/PID/stat.
    static func cpuMilliseconds(pid: Int32) -> Double {
        guard let f = fopen("/proc/\(pid)/stat", "r") else { return 0 }
        defer { fclose(f) }
        var buf = [CChar](repeating: 0, count: 4096)
        guard fgets(&buf, Int32(buf.count), f) != nil else { return 0 }
        let line = String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Fields after the command name (which is in parentheses and may contain spaces).
        guard let close = line.lastIndex(of: ")") else { return 0 }
        let fields = line[line.index(after: close)...].split(separator: " ")
        // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after ")".
        guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else { return 0 }
        return (u + s) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Types each word's prefixes 5 ms apart and waits for every answer; returns the daemon's
    /// CPU milliseconds spent.
    static func run(socket: String, daemonPID: Int32, words: [String], indices: [String], session: Bool) throws -> Double {
        let c = try SocketConnection(path: socket, timeoutSeconds: 30)
        let before = cpuMilliseconds(pid: daemonPID)
        var seq = 0
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
                usleep(5000)
            }
            // Every request ends with a done frame (ok or superseded).
            var open = Set(ids)
            while !open.isEmpty, let line = try c.readLine() {
                if let frame = try? FrameDecoderLite.doneID(line) { open.remove(frame) }
            }
        }
        return cpuMilliseconds(pid: daemonPID) - before
    }
}

/// Finds the id of a `done` frame without decoding the whole line.
enum FrameDecoderLite {
    static func doneID(_ line: [UInt8]) throws -> String? {
        guard line.count < 4096 || contains(line.prefix(64), Array(#""type":"done""#.utf8)) else { return nil }
        guard case .object(let o) = try JSONParser.parse(line), o["type"] == "done" else { return nil }
        return o["id"]?.stringValue
    }
}
