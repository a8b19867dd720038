#if canImport(Glibc)
import Glibc
#endif

/// Writes text to standard error with one `write(2)` call, safe from any thread.
public func writeToStandardError(_ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let start = offset
        guard let n = try? systemCall({ bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + start, $0.count - start) } }), n > 0
        else { return }
        offset += n
    }
}
