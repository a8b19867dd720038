/// A frame's line as the pieces it is sent in, in order.
///
/// Most frames are one array. A large `results` or `merged` frame is not built whole: it
/// shares the big parts of its hits (their attributes, as the embedded index caches them, and
/// their highlights) between small arrays of the text around them, so holding it costs little
/// more than the hits themselves. The daemon's socket copies such a line to libevent piece by
/// piece as the client reads it, so a client that reads slowly holds at most
/// `limits.maxPendingOutputBytes` of copies, not the whole answer.
public struct OutgoingLine: Sendable {
    private enum Storage {
        case whole([UInt8])
        case pieces([ArraySlice<UInt8>])
    }
    private let storage: Storage
    /// The line's length in bytes.
    public let count: Int

    /// A line held as one array.
    public init(_ bytes: [UInt8]) {
        storage = .whole(bytes)
        count = bytes.count
    }

    /// A line made of `pieces`, sent in order.
    public init(pieces: [ArraySlice<UInt8>]) {
        storage = .pieces(pieces)
        count = pieces.reduce(0) { $0 + $1.count }
    }

    /// Whether the line is one array (not shared pieces).
    public var isWhole: Bool {
        if case .whole = storage { return true }
        return false
    }

    /// The pieces, in order (one for a whole line).
    public var pieces: [ArraySlice<UInt8>] {
        switch storage {
        case .whole(let bytes): [bytes[...]]
        case .pieces(let pieces): pieces
        }
    }

    /// The first piece (the whole line when whole): where a frame's `id` and `type` are.
    public var firstPiece: ArraySlice<UInt8> {
        switch storage {
        case .whole(let bytes): bytes[...]
        case .pieces(let pieces): pieces.first ?? []
        }
    }

    /// The line without its first `first` and last `last` bytes, sharing its pieces; nil if
    /// they are not all in its first and last pieces.
    public func trimmed(first: Int, last: Int) -> OutgoingLine? {
        switch storage {
        case .whole(let bytes):
            guard first + last <= bytes.count else { return nil }
            return OutgoingLine(pieces: [bytes[first..<(bytes.count - last)]])
        case .pieces(var pieces):
            guard pieces.count >= 2, pieces[0].count >= first, pieces[pieces.count - 1].count >= last else { return nil }
            pieces[0] = pieces[0].dropFirst(first)
            pieces[pieces.count - 1] = pieces[pieces.count - 1].dropLast(last)
            return OutgoingLine(pieces: pieces.filter { !$0.isEmpty })
        }
    }

    /// The line as one array: the array itself when whole, a copy of the pieces otherwise.
    public var bytes: [UInt8] {
        switch storage {
        case .whole(let bytes): return bytes
        case .pieces(let pieces):
            var out: [UInt8] = []
            out.reserveCapacity(count)
            for p in pieces { LineBuilder.copy(p, into: &out) }
            return out
        }
    }
}

/// Builds a line from text written into ``text`` and slices given to ``append(_:)``. When it
/// ``shares``, a slice of at least ``sharedMinimum`` bytes is kept as a piece of its own (the
/// text so far becomes a piece before it); otherwise everything is copied into one array.
public struct LineBuilder {
    /// The smallest slice worth keeping as a piece rather than copying.
    static let sharedMinimum = 1024

    let shares: Bool
    /// The text being written, after the last finished piece.
    public var text: [UInt8] = []
    private(set) var pieces: [ArraySlice<UInt8>] = []

    /// A builder that shares large slices (`shares`) or copies everything into one array;
    /// `capacity`: about the line's size.
    public init(shares: Bool, capacity: Int) {
        self.shares = shares
        text.reserveCapacity(shares ? min(capacity, 4096) : capacity)
    }

    /// Adds `slice`: shared if large (and the builder shares), else copied into the text.
    mutating func append(_ slice: ArraySlice<UInt8>) {
        guard shares, slice.count >= Self.sharedMinimum else {
            Self.copy(slice, into: &text)
            return
        }
        endText()
        pieces.append(slice)
    }

    /// Adds every piece of a line being built into another one.
    mutating func append(pieces given: [ArraySlice<UInt8>]) {
        for p in given { append(p) }
    }

    /// Adds a line (its large pieces shared if the builder shares).
    public mutating func append(_ line: OutgoingLine) {
        append(pieces: line.pieces)
    }

    /// The text written since the last piece becomes a piece: a copy of its own size (the
    /// text between two shared slices is small, and a slice of `text` would keep its whole
    /// buffer); `text` is reused.
    private mutating func endText() {
        guard !text.isEmpty else { return }
        pieces.append(Array(text[...])[...])
        text.removeAll(keepingCapacity: true)
    }

    /// The pieces written, the text last.
    mutating func finishPieces() -> [ArraySlice<UInt8>] {
        endText()
        return pieces
    }

    /// The line: one array unless it shares slices.
    public mutating func finish() -> OutgoingLine {
        if pieces.isEmpty { return OutgoingLine(text) }
        return OutgoingLine(pieces: finishPieces())
    }

    /// Appends `slice` with one copy (appending a slice otherwise goes element by element).
    /// Pointer use: the slice's storage is borrowed for the call and read inside its bounds.
    static func copy(_ slice: ArraySlice<UInt8>, into out: inout [UInt8]) {
        slice.withUnsafeBufferPointer { out.append(contentsOf: $0) }
    }
}
