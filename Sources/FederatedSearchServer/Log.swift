#if canImport(Glibc)
import Glibc
#endif
import CSystemd
import FederatedSearchCore
import Synchronization

/// A small leveled logger: structured entries to the journal when running under systemd,
/// plain lines on stderr otherwise.
///
/// Messages never include document contents or secrets; query text appears only at debug.
/// Each entry may carry fields (`REQUEST_ID`, `INDEX`, ...) so one query can be traced with
/// `journalctl REQUEST_ID=q1`; on stderr they are appended as `key=value`.
public enum Log {
    public enum Level: Int, Comparable, Sendable {
        case debug = 0, info, warning, error
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        public init?(name: String) {
            switch name {
            case "debug": self = .debug
            case "info": self = .info
            case "warning": self = .warning
            case "error": self = .error
            default: return nil
            }
        }
        package var label: String { ["debug", "info", "warning", "error"][rawValue] }
        /// syslog priority: debug 7, info 6, warning 4, error 3.
        package var priority: Int { [7, 6, 4, 3][rawValue] }
    }

    private static let threshold = Atomic<Int>(Level.info.rawValue)
    /// Whether stderr is connected to the journal (systemd sets JOURNAL_STREAM for services).
    private static let toJournal = getenv("JOURNAL_STREAM") != nil

    /// Sets the lowest level that is written.
    public static func setLevel(_ level: Level) { threshold.store(level.rawValue, ordering: .relaxed) }

    /// Whether messages of `level` are written (to skip building expensive ones).
    public static func enabled(_ level: Level) -> Bool { level.rawValue >= threshold.load(ordering: .relaxed) }

    public static func debug(_ message: @autoclosure () -> String, _ fields: [(String, String)] = []) {
        write(.debug, message, fields)
    }
    public static func info(_ message: @autoclosure () -> String, _ fields: [(String, String)] = []) {
        write(.info, message, fields)
    }
    public static func warning(_ message: @autoclosure () -> String, _ fields: [(String, String)] = []) {
        write(.warning, message, fields)
    }
    public static func error(_ message: @autoclosure () -> String, _ fields: [(String, String)] = []) {
        write(.error, message, fields)
    }

    private static func write(_ level: Level, _ message: () -> String, _ fields: [(String, String)]) {
        guard enabled(level) else { return }
        let text = message()
        if toJournal {
            journal(level, text, fields)
            return
        }
        let extra = fields.map { " \($0.0.lowercased())=\($0.1)" }.joined()
        writeToStandardError("fedsearchd[\(getpid())] \(level.label): \(text)\(extra)\n")
    }

    /// One journal entry with MESSAGE, PRIORITY, SYSLOG_IDENTIFIER and the extra fields,
    /// through sd_journal_sendv (the variadic sd_journal_send cannot be called from Swift).
    private static func journal(_ level: Level, _ text: String, _ fields: [(String, String)]) {
        var entries = ["MESSAGE=\(text)", "PRIORITY=\(level.priority)", "SYSLOG_IDENTIFIER=fedsearchd"]
        entries += fields.map { "\($0.0)=\($0.1)" }
        // All fields in one buffer; the iovecs point into it only inside the closure.
        var joined: [UInt8] = []
        var spans: [(start: Int, count: Int)] = []
        for e in entries {
            spans.append((joined.count, e.utf8.count))
            joined.append(contentsOf: e.utf8)
        }
        let sent = joined.withUnsafeMutableBytes { raw -> Int32 in
            let vectors = spans.map { iovec(iov_base: raw.baseAddress! + $0.start, iov_len: $0.count) }
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) }
        }
        if sent < 0 { writeToStandardError("fedsearchd: \(level.label): \(text)\n") }
    }
}
