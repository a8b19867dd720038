import FederatedSearchClient
import FederatedSearchCore
import SocketTestClient

/// A request as the line sent for it, encoded before any clock starts.
func encodedLine(_ request: JSONValue) -> [UInt8] {
    var line = JSONWriter.bytes(request)
    line.append(0x0A)
    return line
}

/// Sends a request line (see ``encodedLine(_:)``) and reads lines until its `done` (or a
/// request-level error) without decoding the frames: the figure is the daemon's cost, not the
/// client library's JSON encoding and parsing.
func rawRoundTrip(_ conn: SocketConnection, _ line: [UInt8]) throws -> Bool {
    try conn.sendRaw(line)
    let done = Array(#""type":"done""#.utf8)
    let error = Array(#""type":"error""#.utf8)
    // Only the first bytes of each line are read out (`id`, `type`, `index` come first).
    while let line = try conn.readLinePrefix(96) {
        let head = line.prefix(64)
        if contains(head, done) { return true }
        if contains(head, error), !contains(line[...], Array(#""index""#.utf8)) { return true }
    }
    return false
}

func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    var i = haystack.startIndex
    while i + needle.count <= haystack.endIndex {
        if haystack[i..<(i + needle.count)].elementsEqual(needle) { return true }
        i += 1
    }
    return false
}
