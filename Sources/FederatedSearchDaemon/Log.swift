#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore
import Synchronization

/// A small leveled logger writing plain lines to stderr.
///
/// Messages never include document contents or secrets; query text appears only at debug.
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
        var label: String { ["debug", "info", "warning", "error"][rawValue] }
    }

    private static let threshold = Atomic<Int>(Level.info.rawValue)

    /// Sets the lowest level that is written.
    public static func setLevel(_ level: Level) { threshold.store(level.rawValue, ordering: .relaxed) }

    public static func debug(_ message: @autoclosure () -> String) { write(.debug, message) }
    public static func info(_ message: @autoclosure () -> String) { write(.info, message) }
    public static func warning(_ message: @autoclosure () -> String) { write(.warning, message) }
    public static func error(_ message: @autoclosure () -> String) { write(.error, message) }

    private static func write(_ level: Level, _ message: () -> String) {
        guard level.rawValue >= threshold.load(ordering: .relaxed) else { return }
        let line = "fedsearchd[\(getpid())] \(level.label): \(message())\n"
        writeToStandardError(line)
    }
}
