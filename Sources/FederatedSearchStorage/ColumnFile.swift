#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore

#if _endian(big)
#error("column files are little-endian: the arrays are written and read as they lie in memory")
#endif

/// A ``ColumnArchive`` in a file: written whole under a temporary name, synced, then renamed
/// into place (so a crash leaves the old file or the new one, never half of one), and read
/// back checked: every column's checksum and the trailer's, and no length past the file's end.
///
/// Layout (little-endian): `FSCOLUMN`, the format version and the column count (4 bytes
/// each); per column its kind (1 byte, 7 of padding), element count and checksum (8 bytes
/// each), then its elements padded to 8 bytes; last `FSCOLEND` and the hash of every
/// column's checksum.
public enum ColumnFile {
    static let magic = Array("FSCOLUMN".utf8)
    static let trailerMagic = Array("FSCOLEND".utf8)
    static let version: UInt32 = 1

    /// Why a file could not be written or read.
    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(path): \(reason)" }
    }

    /// Writes `archive` to `path` atomically and durably: a temporary file beside it,
    /// `fsync`, `rename`, then `fsync` of the folder.
    public static func write(_ archive: ColumnArchive, to path: String) throws(Failure) {
        let temporary = path + ".tmp"
        let fd: Int32
        do { fd = try systemCall { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) } } catch {
            throw Failure(path: temporary, reason: "cannot create: \(error)")
        }
        var closed = false
        defer { if !closed { close(fd) } }
        var header = magic
        appendLittleEndian(UInt64(version) | UInt64(archive.columns.count) << 32, to: &header)
        var checksums = ContentHash.start
        do {
            try writeAll(fd, header)
            for column in archive.columns {
                let checksum = column.checksum
                checksums = ContentHash.mix(checksums, checksum)
                var head: [UInt8] = [column.kind, 0, 0, 0, 0, 0, 0, 0]
                appendLittleEndian(UInt64(column.count), to: &head)
                appendLittleEndian(checksum, to: &head)
                try writeAll(fd, head)
                let bytes: Int
                switch column {
                case .u8(let a): bytes = try writeAll(fd, a)
                case .u16(let a): bytes = try writeAll(fd, a)
                case .u32(let a): bytes = try writeAll(fd, a)
                case .u64(let a): bytes = try writeAll(fd, a)
                case .i64(let a): bytes = try writeAll(fd, a)
                case .f64(let a): bytes = try writeAll(fd, a)
                }
                if bytes % 8 != 0 { try writeAll(fd, [UInt8](repeating: 0, count: 8 - bytes % 8)) }
            }
            var trailer = trailerMagic
            appendLittleEndian(checksums, to: &trailer)
            try writeAll(fd, trailer)
            try systemCall { fsync(fd) }
            closed = true
            // Not retried on EINTR: on Linux the descriptor is released whatever close returns.
            guard close(fd) == 0 else { throw Errno.current }
            try systemCall { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw Failure(path: path, reason: "cannot write: \(error)")
        }
        syncFolder(of: path)
    }

    /// Reads and checks the archive at `path`.
    public static func read(_ path: String) throws(Failure) -> ColumnArchive {
        let fd: Int32
        do { fd = try systemCall { open(path, O_RDONLY | O_CLOEXEC) } } catch {
            throw Failure(path: path, reason: "cannot open: \(error)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(path: path, reason: "cannot stat: \(Errno.current)") }
        var reader = Reader(fd: fd, path: path, remaining: Int(info.st_size))
        let header = try reader.bytes(16)
        guard Array(header[0..<8]) == magic else { throw Failure(path: path, reason: "not a column file") }
        let versionAndCount = littleEndian(header, at: 8)
        guard UInt32(truncatingIfNeeded: versionAndCount) == version else {
            throw Failure(path: path, reason: "format version \(UInt32(truncatingIfNeeded: versionAndCount)), not \(version)")
        }
        let count = Int(versionAndCount >> 32)
        var columns: [ColumnArchive.Column] = []
        var checksums = ContentHash.start
        for i in 0..<count {
            let head = try reader.bytes(24)
            guard let size = ColumnArchive.Column.elementSize(ofKind: head[0]) else {
                throw Failure(path: path, reason: "column \(i) has an unknown kind \(head[0])")
            }
            let n = littleEndian(head, at: 8)
            guard n <= UInt64(reader.remaining / size) else {
                throw Failure(path: path, reason: "column \(i) claims \(n) elements, past the end of the file")
            }
            let elements = Int(n)
            let column: ColumnArchive.Column
            switch head[0] {
            case 1: column = .u8(try reader.array(elements, of: UInt8.self))
            case 2: column = .u16(try reader.array(elements, of: UInt16.self))
            case 3: column = .u32(try reader.array(elements, of: UInt32.self))
            case 4: column = .u64(try reader.array(elements, of: UInt64.self))
            case 5: column = .i64(try reader.array(elements, of: Int64.self))
            default: column = .f64(try reader.array(elements, of: Double.self))
            }
            let bytes = elements * size
            if bytes % 8 != 0 { _ = try reader.bytes(8 - bytes % 8) }
            let checksum = littleEndian(head, at: 16)
            guard column.checksum == checksum else { throw Failure(path: path, reason: "column \(i) fails its checksum") }
            checksums = ContentHash.mix(checksums, checksum)
            columns.append(column)
        }
        let trailer = try reader.bytes(16)
        guard Array(trailer[0..<8]) == trailerMagic, littleEndian(trailer, at: 8) == checksums else {
            throw Failure(path: path, reason: "the trailer is missing or wrong")
        }
        guard reader.remaining == 0 else { throw Failure(path: path, reason: "\(reader.remaining) bytes after the trailer") }
        return ColumnArchive(columns)
    }

    /// Sequential reads of a file whose size is known, so no length read from it can make a
    /// read (or an allocation) past its end.
    private struct Reader {
        let fd: Int32
        let path: String
        var remaining: Int

        mutating func bytes(_ n: Int) throws(Failure) -> [UInt8] { try array(n, of: UInt8.self) }

        /// `count` elements of `T` read straight into a new array: the file holds them as
        /// they lie in memory (little-endian, checked at compile time).
        mutating func array<T: FixedWidthInteger>(_ count: Int, of: T.Type) throws(Failure) -> [T] {
            var out = [T](repeating: 0, count: count)
            try fill(&out)
            return out
        }

        mutating func array(_ count: Int, of: Double.Type) throws(Failure) -> [Double] {
            var out = [Double](repeating: 0, count: count)
            try fill(&out)
            return out
        }

        private mutating func fill<T>(_ out: inout [T]) throws(Failure) {
            let want = out.count * MemoryLayout<T>.stride
            guard want <= remaining else { throw Failure(path: path, reason: "truncated") }
            let fd = self.fd
            var done = 0
            var failure: Errno?
            out.withUnsafeMutableBytes { buffer in
                while done < want {
                    do throws(Errno) {
                        let n = try systemCall { Glibc.read(fd, buffer.baseAddress! + done, want - done) }
                        if n == 0 { break }
                        done += n
                    } catch {
                        failure = error
                        return
                    }
                }
            }
            if let failure { throw Failure(path: path, reason: "cannot read: \(failure)") }
            guard done == want else { throw Failure(path: path, reason: "truncated") }
            remaining -= want
        }
    }

    /// Writes every byte of `array` as it lies in memory; returns how many.
    @discardableResult
    private static func writeAll<T>(_ fd: Int32, _ array: [T]) throws(Errno) -> Int {
        var failure: Errno?
        let total = array.withUnsafeBytes { buffer -> Int in
            var done = 0
            while done < buffer.count {
                do throws(Errno) {
                    done += try systemCall { Glibc.write(fd, buffer.baseAddress! + done, buffer.count - done) }
                } catch {
                    failure = error
                    break
                }
            }
            return done
        }
        if let failure { throw failure }
        return total
    }

    /// Syncs the folder holding `path`, so that a rename in it survives a power loss.
    static func syncFolder(of path: String) {
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let fd = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    private static func appendLittleEndian(_ x: UInt64, to out: inout [UInt8]) {
        for k in 0..<8 { out.append(UInt8(truncatingIfNeeded: x >> (8 * UInt64(k)))) }
    }

    private static func littleEndian(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        var x: UInt64 = 0
        for k in 0..<8 { x |= UInt64(bytes[offset + k]) << (8 * UInt64(k)) }
        return x
    }
}
