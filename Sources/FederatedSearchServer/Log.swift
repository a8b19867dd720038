#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore
import Synchronization

/// A small leveled logger: plain lines on stderr, or entries to whatever writer the
/// transport installs (the daemon sends them to the journal under systemd: ``setWriter(_:)``).
///
/// Messages never include document contents or secrets; query text appears only at debug.
/// Each entry may carry fields (`REQUEST_ID`, `INDEX`, ...) so one query can be traced with
/// `journalctl REQUEST_ID=q1`; on stderr they are appended as `key=value`.
public enum Log {
    public enum Level: Int, Comparable, Sendable {
        case debug = 0
        case info, warning, error
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

    /// Writes one entry: its level, message and fields.
    public typealias Writer = @Sendable (_ level: Level, _ message: String, _ fields: [(String, String)]) -> Void

    private static let threshold = Atomic<Int>(Level.info.rawValue)
    private static let writer = Mutex<Writer?>(nil)

    /// Sets the lowest level that is written.
    public static func setLevel(_ level: Level) { threshold.store(level.rawValue, ordering: .relaxed) }

    /// Sends entries to `writer` from now on (nil: back to stderr lines).
    public static func setWriter(_ writer: Writer?) { self.writer.withLock { $0 = writer } }

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
        if let writer = writer.withLock({ $0 }) {
            writer(level, text, fields)
            return
        }
        writeLine(level, text, fields)
    }

    /// The entry as a line on stderr, its fields appended as `key=value`.
    public static func writeLine(_ level: Level, _ text: String, _ fields: [(String, String)]) {
        let extra = fields.map { " \($0.0.lowercased())=\($0.1)" }.joined()
        writeToStandardError("fedsearchd[\(getpid())] \(level.label): \(text)\(extra)\n")
    }
}
