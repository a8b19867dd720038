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

    /// The sockets passed, as the main socket's and the HTTP listener's: a socket is the HTTP
    /// listener's when its unit names it `http` (`FileDescriptorName=http`) or it is a TCP socket.
    static func activatedSockets() -> (main: [Int32], http: [Int32]) {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let n = sd_listen_fds_with_names(1, &names)
        guard n > 0 else { return ([], []) }
        var main: [Int32] = []
        var http: [Int32] = []
        for i in 0..<n {
            let fd = SD_LISTEN_FDS_START + i
            let flags = fcntl(fd, F_GETFL)
            _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            // Pointer use: the array of n names libsystemd allocated for us, freed below.
            let name = names?[Int(i)].map { String(cString: $0) } ?? ""
            let isTCP = sd_is_socket_inet(fd, 0, Int32(SOCK_STREAM.rawValue), 1, 0) > 0
            if name == "http" || isTCP { http.append(fd) } else { main.append(fd) }
        }
        if let names {
            for i in 0..<Int(n) { free(names[i]) }
            free(names)
        }
        return (main, http)
    }

    /// Whether stderr goes to the journal (systemd sets `JOURNAL_STREAM` for services).
    static var stderrIsJournal: Bool { getenv("JOURNAL_STREAM") != nil }
}
