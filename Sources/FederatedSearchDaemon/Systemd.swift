#if canImport(Glibc)
import Glibc
import FederatedSearchServer
#endif
import CSystemd

/// The daemon's side of the systemd protocols, through libsystemd: readiness and status
/// notifications, the watchdog, and socket activation. Every call is a no-op when the daemon
/// does not run under systemd (no `NOTIFY_SOCKET`, no `LISTEN_FDS`).
enum Systemd {
    /// Sends a notification such as `READY=1` or `STATUS=loading movies`.
    static func notify(_ state: String) {
        _ = state.withCString { sd_notify(0, $0) }
    }

    /// The interval at which to send `WATCHDOG=1` (half of `WATCHDOG_USEC`), if systemd
    /// supervises this process with a watchdog.
    static func watchdogInterval() -> Duration? {
        var usec: UInt64 = 0
        guard sd_watchdog_enabled(0, &usec) > 0, usec > 0 else { return nil }
        return .microseconds(Int64(usec / 2))
    }

    /// The listening sockets passed by socket activation (`LISTEN_FDS`), made non-blocking.
    /// Whether systemd passes this process listening sockets, without taking them (as
    /// `activatedSockets()` does, which clears the variables that say so).
    static var passesSockets: Bool {
        guard let pid = getenv("LISTEN_PID").flatMap({ Int32(String(cString: $0)) }), pid == getpid() else { return false }
        return getenv("LISTEN_FDS").flatMap { Int(String(cString: $0)) }.map { $0 > 0 } ?? false
    }

    static func activatedSockets() -> [Int32] {
        let n = sd_listen_fds(1)
        guard n > 0 else { return [] }
        return (0..<n).map { i in
            let fd = SD_LISTEN_FDS_START + i
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            return fd
        }
    }

    /// Whether stderr goes to the journal (systemd sets `JOURNAL_STREAM` for services).
    static var stderrIsJournal: Bool { getenv("JOURNAL_STREAM") != nil }
}
