import CLibevent
import FederatedSearchProtocol

/// An HTTP response body too large to copy whole (see ``OutgoingLine``), handed to evhttp a
/// bounded step at a time: each step is at most `maxPendingOutputBytes`, and the next goes
/// once evhttp has written the last to the socket. The body's length is sent as its
/// `Content-Length`, so the response is not chunked. Loop thread only.
struct PiecewiseReply {
    /// The evhttp request being answered (evhttp frees it once the response is sent, or with
    /// its connection).
    let request: OpaquePointer
    private var pieces: [ArraySlice<UInt8>]
    private var head = 0
    /// Bytes not yet handed to evhttp.
    private(set) var remaining: Int

    init(request: OpaquePointer, body: OutgoingLine) {
        self.request = request
        pieces = body.pieces
        remaining = body.count
    }

    /// Whether every byte has been handed to evhttp.
    var isDone: Bool { remaining == 0 }

    /// Copies up to `maxBytes` of the body into `buffer`; returns how many.
    mutating func copy(into buffer: OpaquePointer, maxBytes: Int) -> Int {
        var copied = 0
        while head < pieces.count, copied < maxBytes {
            let piece = pieces[head]
            let take = min(piece.count, maxBytes - copied)
            // The slice's storage is borrowed for the call; evbuffer_add copies it.
            _ = piece.prefix(take).withUnsafeBytes { evbuffer_add(buffer, $0.baseAddress, $0.count) }
            copied += take
            if take == piece.count {
                pieces[head] = []
                head += 1
            } else {
                pieces[head] = piece.dropFirst(take)
            }
        }
        remaining -= copied
        return copied
    }
}
