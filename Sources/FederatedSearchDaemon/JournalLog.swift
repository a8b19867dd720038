#if canImport(Glibc)
import Glibc
#endif
import CSystemd
import FederatedSearchCore
import FederatedSearchServer

/// The daemon's log writer under systemd: each entry goes to the journal with MESSAGE,
/// PRIORITY, SYSLOG_IDENTIFIER and its fields (`journalctl REQUEST_ID=q1`), through
/// sd_journal_sendv (the variadic sd_journal_send cannot be called from Swift).
enum JournalLog {
    /// Installs the journal writer when stderr goes to the journal; plain lines otherwise.
    static func installIfJournal() {
        if Systemd.stderrIsJournal { Log.setWriter(write) }
    }

    @Sendable static func write(_ level: Log.Level, _ text: String, _ fields: [(String, String)]) {
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
        if sent < 0 { Log.writeLine(level, text, fields) }
    }
}
