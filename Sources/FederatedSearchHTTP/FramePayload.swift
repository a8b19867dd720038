import FederatedSearchCore
import FederatedSearchProtocol

/// Reads the frames the server core answers with (`FrameWriter`'s text, for a request with no
/// id) without parsing the large ones: a source's Algolia results are the bytes of its
/// `results` frame between known delimiters, copied as they are.
package enum FramePayload {
    private static let head = Array(#"{"id":null,"type":""#.utf8)

    /// The frame's type, if the line is a frame of a request with no id.
    package static func type(of line: [UInt8]) -> String? {
        guard line.count > head.count, line.starts(with: head) else { return nil }
        guard let close = line[head.count...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: line[head.count..<close], as: UTF8.self)
    }

    /// The frame's members after `id` and `type`, as the text of an object (`{}` if none).
    package static func members(of line: [UInt8]) -> [UInt8] {
        guard let type = type(of: line) else { return Array("{}".utf8) }
        let after = head.count + type.utf8.count + 1
        var end = line.count
        if end > 0, line[end - 1] == 0x0A { end -= 1 }
        guard after < end, line[after] == UInt8(ascii: ",") else { return Array("{}".utf8) }
        return [UInt8(ascii: "{")] + line[(after + 1)..<end]
    }

    /// The `results` object of source `name`'s results frame.
    package static func results(of line: [UInt8], source name: String) -> ArraySlice<UInt8>? {
        var prefix = Array(#"{"id":null,"type":"results","index":"#.utf8)
        JSONWriter.writeString(name, into: &prefix)
        prefix.append(contentsOf: #","results":"#.utf8)
        guard line.count >= prefix.count + 3, line.starts(with: prefix), line.last == 0x0A else { return nil }
        return line[prefix.count..<(line.count - 2)]
    }

    /// The source name and `results` object of a results frame.
    package static func namedResults(of line: [UInt8]) -> (name: String, results: ArraySlice<UInt8>)? {
        guard let name = namedResults(ofHead: line) else { return nil }
        return results(of: line, source: name).map { (name, $0) }
    }

    /// The error of an `error` frame.
    package static func error(of line: [UInt8]) -> SearchError? {
        guard case .object(let o)? = try? JSONParser.parse(line), case .object(let e)? = o["error"],
            case .string(let code)? = e["code"], case .string(let message)? = e["message"]
        else { return nil }
        return SearchError(ErrorCode(rawValue: code), message)
    }

    /// The members of a small frame (`info`, `done`) as an object.
    package static func object(of line: [UInt8]) -> JSONObject? {
        guard case .object(var o)? = try? JSONParser.parse(line) else { return nil }
        o["id"] = nil
        o["type"] = nil
        return o
    }

    // The same for a line as the core emits it, a large one in pieces: the large frames'
    // payloads are cut out sharing those pieces; the small frames are read whole.

    /// The frame's type.
    package static func type(of line: OutgoingLine) -> String? { type(of: Array(line.firstPiece.prefix(64))) }

    /// The `results` object of source `name`'s results frame, sharing the line's pieces.
    package static func results(of line: OutgoingLine, source name: String) -> OutgoingLine? {
        var prefix = Array(#"{"id":null,"type":"results","index":"#.utf8)
        JSONWriter.writeString(name, into: &prefix)
        prefix.append(contentsOf: #","results":"#.utf8)
        guard line.isWhole else {
            guard line.firstPiece.starts(with: prefix) else { return nil }
            return line.trimmed(first: prefix.count, last: 2)
        }
        return results(of: line.bytes, source: name).map { OutgoingLine(pieces: [$0]) }
    }

    /// The source name and `results` object of a results frame, sharing the line's pieces.
    package static func namedResults(of line: OutgoingLine) -> (name: String, results: OutgoingLine)? {
        guard !line.isWhole else { return namedResults(of: line.bytes).map { ($0.name, OutgoingLine(pieces: [$0.results])) } }
        // The name is in the first piece, which holds the frame's head.
        guard let name = namedResults(ofHead: Array(line.firstPiece)) else { return nil }
        return results(of: line, source: name).map { (name, $0) }
    }

    /// The source name at the head of a results frame.
    private static func namedResults(ofHead line: [UInt8]) -> String? {
        let start = Array(#"{"id":null,"type":"results","index":""#.utf8)
        guard line.starts(with: start) else { return nil }
        var i = start.count
        while i < line.count, line[i] != UInt8(ascii: "\"") { i += line[i] == UInt8(ascii: "\\") ? 2 : 1 }
        guard i < line.count, case .string(let name)? = try? JSONParser.parse(Array(line[(start.count - 1)...i])) else {
            return nil
        }
        return name
    }

    /// The frame's members after `id` and `type`, as an object, sharing the line's pieces.
    package static func members(of line: OutgoingLine) -> OutgoingLine {
        guard !line.isWhole, let type = type(of: line) else { return OutgoingLine(members(of: line.bytes)) }
        let after = head.count + type.utf8.count + 1
        let first = line.firstPiece
        guard first.count > after, first[first.startIndex + after] == UInt8(ascii: ","),
            let rest = line.trimmed(first: after + 1, last: 1)
        else { return OutgoingLine(members(of: line.bytes)) }
        var out = LineBuilder(shares: true, capacity: line.count)
        out.text.append(UInt8(ascii: "{"))
        out.append(rest)
        return out.finish()
    }
}
