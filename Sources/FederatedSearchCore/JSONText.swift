/// A run of JSON text inside a larger buffer (a value or member list inside a frame's line),
/// kept without copying: every hit decoded from one frame shares the frame's bytes.
public struct JSONText: Sendable {
    /// The buffer that holds the text.
    public let buffer: [UInt8]
    /// Where the text is in `buffer`.
    public let range: Range<Int>

    public init(buffer: [UInt8], range: Range<Int>) {
        self.buffer = buffer
        self.range = range
    }

    /// All of `bytes`.
    public init(_ bytes: [UInt8]) {
        self.init(buffer: bytes, range: 0..<bytes.count)
    }

    /// The text's bytes.
    public var bytes: ArraySlice<UInt8> { buffer[range] }

    /// A cursor at the start of the text.
    public func parser(maxDepth: Int = 128) -> JSONParser {
        JSONParser(bytes: buffer, range: range, maxDepth: maxDepth)
    }
}
