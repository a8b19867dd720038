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
        let fd: Int32
        do { fd = try systemCall { open(path, O_RDONLY | O_CLOEXEC) } } catch {
            throw SearchError(.invalidField, "\(field): cannot open '\(path)': \(error)")
        }
        defer { close(fd) }
        var chunk = [UInt8](repeating: 0, count: chunkBytes)
        while true {
            let n: Int
            do { n = try systemCall { chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } } } catch {
                throw SearchError(.invalidField, "\(field): cannot read '\(path)': \(error)")
            }
            if n == 0 { return }
            try body(chunk[0..<n])
        }
    }
}
