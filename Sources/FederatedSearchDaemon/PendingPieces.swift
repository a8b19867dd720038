import FederatedSearchProtocol

/// Bytes of lines sent in pieces (see ``OutgoingLine``), kept in order and taken from the
/// front a bounded amount at a time: what a connection, or a large HTTP response, still has
/// to hand to libevent. The pieces are the lines' own (shared, not copied) until taken.
struct PendingPieces {
    private var pieces: [ArraySlice<UInt8>] = []
    /// The first piece not yet wholly taken.
    private var head = 0
    /// Bytes not yet taken.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    mutating func append(_ line: OutgoingLine) {
        pieces += line.pieces
        count += line.count
    }

    /// Hands `send` the front bytes, a piece or the start of one at a time, while `room()`
    /// (asked before each) allows more; returns how many bytes went.
    mutating func take(while room: () -> Int, _ send: (ArraySlice<UInt8>) -> Void) -> Int {
        var taken = 0
        while head < pieces.count {
            let allowed = room()
            guard allowed > 0 else { break }
            let piece = pieces[head]
            let n = min(piece.count, allowed)
            send(piece.prefix(n))
            taken += n
            if n == piece.count {
                pieces[head] = []
                head += 1
            } else {
                pieces[head] = piece.dropFirst(n)
            }
        }
        // Taken pieces are dropped once all are, or in bulk (not one by one from the front).
        if head == pieces.count {
            pieces = []
            head = 0
        } else if head >= 1024 {
            pieces.removeFirst(head)
            head = 0
        }
        count -= taken
        return taken
    }

    mutating func removeAll() {
        pieces = []
        head = 0
        count = 0
    }
}
