#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore

/// The documents of an import file, one at a time: NDJSON is read line by line, so a file of
/// any size is never held whole; a JSON array is parsed whole. A line that is not JSON throws
/// ``BadLine`` when it is reached (the documents before it may already be sent).
final class DocumentSource {
    /// How many documents the file holds (non-blank lines, or array items), for the progress
    /// bar; nil for NDJSON from a pipe, which is read only once.
    let total: Int?
    private var file: UnsafeMutablePointer<FILE>?
    private var array: [JSONValue] = []
    private var arrayPosition = 0
    private var buffer: [UInt8] = []
    private var bufferPosition = 0
    private var atEnd = false
    /// The number of the line read last (1-based).
    private(set) var line = 0

    /// A line of an NDJSON file that is not a JSON value.
    struct BadLine: Error {
        let line: Int
        let message: String
    }

    init(path: String) throws {
        guard let f = fopen(path, "r") else { throw UsageError(message: Errno.current.description) }
        var st = stat()
        let regular = fstat(fileno(f), &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
        guard regular else {
            // A pipe cannot be read twice: no count (the progress shows no total), and the
            // first bytes, read to tell an array from NDJSON, stay in the buffer.
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            var head: [UInt8] = []
            var first: UInt8? = nil
            while first == nil {
                let n = fread(&chunk, 1, chunk.count, f)
                if n == 0 { break }
                head += chunk[0..<n]
                first = head.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
            }
            if first == UInt8(ascii: "[") {
                while true {
                    let n = fread(&chunk, 1, chunk.count, f)
                    if n == 0 { break }
                    head += chunk[0..<n]
                }
                fclose(f)
                array = try JSONParser.parse(head).arrayValue ?? []
                total = array.count
            } else {
                file = f
                buffer = head
                total = nil
            }
            return
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        // First pass: the first significant byte says array or NDJSON; count the non-blank lines.
        var first: UInt8? = nil
        var lines = 0
        var lineHasContent = false
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n == 0 { break }
            for b in chunk[0..<n] {
                if b == 0x0A {
                    if lineHasContent { lines += 1 }
                    lineHasContent = false
                } else if b != 0x20 && b != 0x0D && b != 0x09 {
                    lineHasContent = true
                    if first == nil { first = b }
                }
            }
        }
        if lineHasContent { lines += 1 }
        if first == UInt8(ascii: "[") {
            fclose(f)
            array = try JSONParser.parse(try ImportCommand.readFile(path)).arrayValue ?? []
            total = array.count
        } else {
            rewind(f)
            file = f
            total = lines
        }
    }

    deinit { if let file { fclose(file) } }

    /// The next document, or nil at the end.
    func next() throws -> JSONValue? {
        if file == nil {
            guard arrayPosition < array.count else { return nil }
            arrayPosition += 1
            return array[arrayPosition - 1]
        }
        while let bytes = readLine() {
            line += 1
            guard bytes.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { continue }
            do { return try JSONParser.parse(bytes) } catch {
                throw BadLine(line: line, message: "\(error)")
            }
        }
        return nil
    }

    /// The next line without its newline, or nil at the end of the file.
    private func readLine() -> [UInt8]? {
        var out: [UInt8] = []
        while true {
            if let newline = buffer[bufferPosition...].firstIndex(of: 0x0A) {
                out += buffer[bufferPosition..<newline]
                bufferPosition = newline + 1
                return out
            }
            out += buffer[bufferPosition...]
            buffer.removeAll(keepingCapacity: true)
            bufferPosition = 0
            if atEnd { return out.isEmpty ? nil : out }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let n = fread(&chunk, 1, chunk.count, file)
            if n == 0 { atEnd = true } else { buffer = Array(chunk[0..<n]) }
        }
    }
}
