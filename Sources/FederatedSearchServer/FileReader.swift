#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore

/// Reads whole files with POSIX calls, turning failures into coded errors that name the file.
package enum FileReader {
    package static func read(_ path: String, field: String) throws(SearchError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw SearchError(.invalidField, "\(field): cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SearchError(.invalidField, "\(field): cannot read '\(path)': \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }
}
