import FederatedSearchCore

/// Loads documents from data files: NDJSON (one object per line) or a JSON array of objects.
///
/// A file is read and parsed a chunk at a time: the daemon holds the documents and at most one
/// document's text, never the whole file, and a file that is wrong from its first byte is
/// refused at once. Errors name the file and the line (NDJSON) or item (array).
package struct DocumentLoader {
    /// The longest line or array item taken (a larger one is refused, naming it).
    package static let maxDocumentBytes = 64 << 20

    private let file: String
    private let field: String
    private enum Shape { case unknown, lines, array }
    private var shape = Shape.unknown
    /// The text of the document being read (a line, or an array item), not complete yet.
    private var pending: [UInt8] = []
    /// Bytes of the file fed so far, and where `pending` starts in it.
    private var offset = 0
    private var pendingStart = 0
    /// NDJSON: the number of the line in `pending`.
    private var lineNumber = 1
    /// Array: the scanner's state inside the array (see ``scanArray(_:)``).
    private var opened = false
    private var closed = false
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var itemNumber = 0
    /// Whether the item being read has had a byte other than whitespace.
    private var itemStarted = false
    private(set) var documents: [JSONObject] = []

    package init(file: String, field: String) {
        self.file = file
        self.field = field
    }

    /// Reads the file at `path` a chunk at a time and returns its documents.
    package static func load(path: String, field: String) throws(SearchError) -> [JSONObject] {
        var loader = DocumentLoader(file: path, field: field)
        try FileReader.forEachChunk(path, field: field, chunkBytes: 1 << 20) { chunk throws(SearchError) in try loader.feed(chunk) }
        return try loader.finish()
    }

    /// Parses a whole file's bytes.
    package static func parse(_ bytes: [UInt8], file: String, field: String) throws(SearchError) -> [JSONObject] {
        var loader = DocumentLoader(file: file, field: field)
        try loader.feed(bytes[...])
        return try loader.finish()
    }

    /// Takes the next bytes of the file; each document completed by them is parsed now.
    package mutating func feed(_ bytes: ArraySlice<UInt8>) throws(SearchError) {
        var bytes = bytes
        if shape == .unknown {
            guard let first = bytes.firstIndex(where: { !Self.isSpace($0) }) else {
                offset += bytes.count
                return
            }
            shape = bytes[first] == UInt8(ascii: "[") ? .array : .lines
            if shape == .array {
                offset += first - bytes.startIndex
                bytes = bytes[first...]
            }
        }
        switch shape {
        case .lines: try feedLines(bytes)
        case .array: try scanArray(bytes)
        case .unknown: break
        }
    }

    /// The documents, once the whole file has been fed.
    package mutating func finish() throws(SearchError) -> [JSONObject] {
        switch shape {
        case .lines:
            try takeLine(pending[...])
            pending = []
        case .array where !closed:
            throw SearchError(.invalidJSON, "\(field): '\(file)': the array is not closed at the end of the file (byte \(offset))")
        default:
            break
        }
        return documents
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    private mutating func feedLines(_ bytes: ArraySlice<UInt8>) throws(SearchError) {
        var rest = bytes
        while let newline = rest.firstIndex(of: 0x0A) {
            if pending.isEmpty {
                try takeLine(rest[..<newline])
            } else {
                pending += rest[..<newline]
                try takeLine(pending[...])
                pending = []
            }
            lineNumber += 1
            rest = rest[(newline + 1)...]
        }
        pending += rest
        // Refused as soon as it cannot be a document: its first byte, or its length.
        if let first = pending.first(where: { !Self.isSpace($0) }), first != UInt8(ascii: "{") {
            throw lineError("expected an object, got '\(Self.printable(first))'")
        }
        if pending.count > Self.maxDocumentBytes {
            throw lineError("longer than \(Self.maxDocumentBytes) bytes")
        }
    }

    private func lineError(_ reason: String) -> SearchError {
        SearchError(.invalidJSON, "\(field): '\(file)' line \(lineNumber): \(reason)")
    }

    private static func printable(_ b: UInt8) -> String {
        (0x21..<0x7F).contains(b) ? String(UnicodeScalar(b)) : "byte 0x\(String(b, radix: 16))"
    }

    private mutating func takeLine(_ line: ArraySlice<UInt8>) throws(SearchError) {
        if line.allSatisfy(Self.isSpace) { return }
        let value: JSONValue
        do { value = try JSONParser.parse(Array(line)) } catch {
            throw lineError("\(error.reason) at byte \(error.offset)")
        }
        guard case .object(let o) = value else { throw lineError("expected an object, got \(value.typeName)") }
        documents.append(o)
    }

    /// Finds each item of the array (outside strings, where the nesting depth returns to the
    /// array's own and a `,` or `]` follows) and parses it alone.
    private mutating func scanArray(_ bytes: ArraySlice<UInt8>) throws(SearchError) {
        for i in bytes.indices {
            let b = bytes[i]
            let at = offset + (i - bytes.startIndex)
            if closed {
                guard Self.isSpace(b) else {
                    throw SearchError(.invalidJSON, "\(field): '\(file)': '\(Self.printable(b))' after the array's end at byte \(at)")
                }
                continue
            }
            if !opened {
                opened = true  // the `[` found by feed
                continue
            }
            if inString {
                if escaped {
                    escaped = false
                } else if b == UInt8(ascii: "\\") {
                    escaped = true
                } else if b == UInt8(ascii: "\"") {
                    inString = false
                }
                pending.append(b)
                continue
            }
            var endsItem = false
            switch b {
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                // At the array's own depth, `]` ends it; a stray `}` is left for the parser.
                if depth > 0 { depth -= 1 } else if b == UInt8(ascii: "]") { endsItem = true }
            case UInt8(ascii: ","):
                endsItem = depth == 0
            default:
                break
            }
            if endsItem {
                if b == UInt8(ascii: "]") { closed = true }
                // `[]` has no item; anything else between separators must be one.
                if !(closed && itemNumber == 0 && !itemStarted) { try takeItem() }
                pending = []
                itemStarted = false
                pendingStart = at + 1
                continue
            }
            if pending.isEmpty { pendingStart = at }
            pending.append(b)
            if pending.count > Self.maxDocumentBytes {
                throw SearchError(.invalidJSON, "\(field): '\(file)' item \(itemNumber): longer than \(Self.maxDocumentBytes) bytes")
            }
            // An item is an object: anything else is refused at its first byte.
            if !itemStarted, !Self.isSpace(b) {
                itemStarted = true
                guard b == UInt8(ascii: "{") else {
                    throw SearchError(
                        .invalidField,
                        "\(field): '\(file)' item \(itemNumber): expected an object, got '\(Self.printable(b))' at byte \(at)")
                }
            }
        }
        offset += bytes.count
    }

    private mutating func takeItem() throws(SearchError) {
        let value: JSONValue
        do { value = try JSONParser.parse(pending) } catch {
            throw SearchError(
                .invalidJSON, "\(field): '\(file)' item \(itemNumber): \(error.reason) at byte \(pendingStart + error.offset)")
        }
        guard case .object(let o) = value else {
            throw SearchError(.invalidField, "\(field): '\(file)' item \(itemNumber): expected an object, got \(value.typeName)")
        }
        documents.append(o)
        itemNumber += 1
    }
}
