/// An ordered list of typed arrays: what an immutable index structure is saved as and read
/// back from (the storage layer writes it to a file, the engine encodes and decodes its
/// segments with it). Pure values, no I/O.
public struct ColumnArchive: Sendable, Equatable {
    /// One typed array.
    public enum Column: Sendable, Equatable {
        case u8([UInt8])
        case u16([UInt16])
        case u32([UInt32])
        case u64([UInt64])
        case i64([Int64])
        case f64([Double])

        /// The kind's number in a file.
        public var kind: UInt8 {
            switch self {
            case .u8: 1
            case .u16: 2
            case .u32: 3
            case .u64: 4
            case .i64: 5
            case .f64: 6
            }
        }

        /// The number of elements.
        public var count: Int {
            switch self {
            case .u8(let a): a.count
            case .u16(let a): a.count
            case .u32(let a): a.count
            case .u64(let a): a.count
            case .i64(let a): a.count
            case .f64(let a): a.count
            }
        }

        /// Bytes per element of a kind, or nil for an unknown kind.
        public static func elementSize(ofKind kind: UInt8) -> Int? {
            switch kind {
            case 1: 1
            case 2: 2
            case 3: 4
            case 4, 5, 6: 8
            default: nil
            }
        }

        /// A 64-bit checksum of the kind and the elements (FNV-1a over each element's value):
        /// it finds a flipped or lost byte, not a deliberate forgery.
        public var checksum: UInt64 {
            var h = ContentHash.start
            h = ContentHash.mix(h, UInt64(kind))
            switch self {
            case .u8(let a): for x in a { h = ContentHash.mix(h, UInt64(x)) }
            case .u16(let a): for x in a { h = ContentHash.mix(h, UInt64(x)) }
            case .u32(let a): for x in a { h = ContentHash.mix(h, UInt64(x)) }
            case .u64(let a): for x in a { h = ContentHash.mix(h, x) }
            case .i64(let a): for x in a { h = ContentHash.mix(h, UInt64(bitPattern: x)) }
            case .f64(let a): for x in a { h = ContentHash.mix(h, x.bitPattern) }
            }
            return h
        }
    }

    public var columns: [Column]

    public init(_ columns: [Column] = []) { self.columns = columns }

    public mutating func append(_ column: Column) { columns.append(column) }

    /// Strings as two columns: their UTF-8 bytes concatenated, and the offsets where each ends.
    public mutating func append(strings: [String]) {
        var bytes: [UInt8] = []
        var ends: [UInt32] = []
        ends.reserveCapacity(strings.count)
        for s in strings {
            bytes.append(contentsOf: s.utf8)
            ends.append(UInt32(bytes.count))
        }
        columns.append(.u8(bytes))
        columns.append(.u32(ends))
    }
}

/// Reads an archive's columns in the order they were appended, each of the kind the caller
/// expects; a column of another kind, or one too few, throws naming the column's position.
public struct ColumnReader {
    private let columns: [ColumnArchive.Column]
    private var next = 0

    public init(_ archive: ColumnArchive) { columns = archive.columns }

    /// What does not match what the reader expects.
    public struct Mismatch: Error, CustomStringConvertible {
        public let description: String
    }

    private mutating func take() throws(Mismatch) -> ColumnArchive.Column {
        guard next < columns.count else { throw Mismatch(description: "column \(next) is missing") }
        next += 1
        return columns[next - 1]
    }

    private func wrongKind(_ expected: String) -> Mismatch {
        Mismatch(description: "column \(next - 1) is not the \(expected) column expected there")
    }

    public mutating func u8() throws(Mismatch) -> [UInt8] {
        guard case .u8(let a) = try take() else { throw wrongKind("8-bit") }
        return a
    }

    public mutating func u16() throws(Mismatch) -> [UInt16] {
        guard case .u16(let a) = try take() else { throw wrongKind("16-bit") }
        return a
    }

    public mutating func u32() throws(Mismatch) -> [UInt32] {
        guard case .u32(let a) = try take() else { throw wrongKind("32-bit") }
        return a
    }

    public mutating func u64() throws(Mismatch) -> [UInt64] {
        guard case .u64(let a) = try take() else { throw wrongKind("unsigned 64-bit") }
        return a
    }

    public mutating func i64() throws(Mismatch) -> [Int64] {
        guard case .i64(let a) = try take() else { throw wrongKind("signed 64-bit") }
        return a
    }

    public mutating func f64() throws(Mismatch) -> [Double] {
        guard case .f64(let a) = try take() else { throw wrongKind("floating-point") }
        return a
    }

    /// Strings appended with ``ColumnArchive/append(strings:)``.
    public mutating func strings() throws(Mismatch) -> [String] {
        let bytes = try u8()
        let ends = try u32()
        var out: [String] = []
        out.reserveCapacity(ends.count)
        var start = 0
        for e in ends {
            let end = Int(e)
            guard start <= end, end <= bytes.count else { throw Mismatch(description: "column \(next - 1) has a string out of bounds") }
            out.append(String(decoding: bytes[start..<end], as: UTF8.self))
            start = end
        }
        return out
    }

    /// Whether every column was read.
    public var isAtEnd: Bool { next == columns.count }
}

/// 64-bit hashes for checksums and for telling whether a stored document is the one a saved
/// segment was built from. Not for security: they find changes, not forgeries.
public enum ContentHash {
    public static let start: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// One FNV-1a step: a small value (a byte, an array element) into the hash.
    @inline(__always) public static func mix(_ h: UInt64, _ x: UInt64) -> UInt64 { (h ^ x) &* prime }

    /// The hash of a text's UTF-8 bytes (equal to ``of(_:)-(UInt8)`` of them).
    public static func of(_ text: String) -> UInt64 { of(Array(text.utf8)) }

    /// The hash of some bytes, eight at a time: each word is multiplied in and folded so that
    /// its high bits reach the low ones, then the length.
    public static func of(_ bytes: [UInt8]) -> UInt64 {
        var h = start
        var i = 0
        let n = bytes.count
        while i + 8 <= n {
            var w: UInt64 = 0
            for k in 0..<8 { w |= UInt64(bytes[i &+ k]) << UInt64(8 &* k) }
            h = word(h, w)
            i &+= 8
        }
        var w: UInt64 = 0
        var k: UInt64 = 0
        while i < n {
            w |= UInt64(bytes[i]) << (8 &* k)
            i &+= 1
            k &+= 1
        }
        return word(word(h, w), UInt64(n))
    }

    @inline(__always) private static func word(_ h: UInt64, _ w: UInt64) -> UInt64 {
        let x = (h ^ w) &* 0x9e37_79b9_7f4a_7c15
        return x ^ (x >> 32)
    }
}
