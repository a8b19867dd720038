#if canImport(Glibc)
import Glibc
#endif

/// Writes text to standard error with one `write(2)` call, safe from any thread.
public func writeToStandardError(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0, errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
    }
}
