import FederatedSearchEventLoop
import FederatedSearchProtocol

/// An HTTP response body too large to copy whole (see ``OutgoingLine``), handed to evhttp a
/// bounded step at a time: each step is at most `maxPendingOutputBytes`, and the next goes
/// once evhttp has written the last to the socket. The body's length is sent as its
/// `Content-Length`, so the response is not chunked. Loop thread only.
struct PiecewiseReply {
    /// The evhttp request being answered (evhttp frees it once the response is sent, or with
    /// its connection).
    let request: HTTPServerRequest
    private var body = PendingPieces()

    init(request: HTTPServerRequest, body: OutgoingLine) {
        self.request = request
        self.body.append(body)
    }

    /// Bytes not yet handed to evhttp.
    var remaining: Int { body.count }

    /// Whether every byte has been handed to evhttp.
    var isDone: Bool { body.isEmpty }

    /// Copies up to `maxBytes` of the body into `buffer`; returns how many.
    mutating func copy(into buffer: ChunkBuffer, maxBytes: Int) -> Int {
        var left = maxBytes
        return body.take(while: { left }) { piece in
            left -= piece.count
            // The slice's storage is borrowed for the call; the buffer copies it.
            piece.withUnsafeBytes { buffer.append($0) }
        }
    }
}
