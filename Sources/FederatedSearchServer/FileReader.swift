#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore

/// Reads files with POSIX calls, turning failures into coded errors that name the file.
package enum FileReader {
    /// The whole file.
    package static func read(_ path: String, field: String) throws(SearchError) -> [UInt8] {
        var out: [UInt8] = []
        try forEachChunk(path, field: field) { chunk throws(SearchError) in out.append(contentsOf: chunk) }
        return out
    }

    /// Hands the file to `body` a chunk of at most `chunkBytes` at a time, in order.
    package static func forEachChunk(
        _ path: String, field: String, chunkBytes: Int = 1 << 16, _ body: (ArraySlice<UInt8>) throws(SearchError) -> Void
    ) throws(SearchError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw SearchError(.invalidField, "\(field): cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var chunk = [UInt8](repeating: 0, count: chunkBytes)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SearchError(.invalidField, "\(field): cannot read '\(path)': \(String(cString: strerror(errno)))")
            }
            if n == 0 { return }
            try body(chunk[0..<n])
        }
    }
}
