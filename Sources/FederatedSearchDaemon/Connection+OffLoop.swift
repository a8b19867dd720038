import Dispatch
import FederatedSearchServer
import FederatedSearchCore
import FederatedSearchProtocol

/// Work of a connection that does not belong on the loop thread: a long request line (a
/// write batch of a megabyte takes milliseconds to parse, which every search on the daemon
/// would wait for) is decoded on a background worker; the lines after it wait, in order, until
/// it is back. Answers from the index writers come back through the inbox too.
extension Connection {
    /// Lines at least this long are decoded off the loop.
    static let offLoopDecodeBytes = 64 * 1024

    /// Acts on one line (see ``pump()``, which keeps their order).
    func act(on event: LineFramer.Event) {
        if case .line(let bytes) = event, bytes.count >= Self.offLoopDecodeBytes, !machine.closing {
            decodingOffLoop = true
            // Read no more until it is back: what the client sends meanwhile waits in the
            // socket, not in the daemon's memory.
            updateReading()
            let inbox: Inbox = loop.inbox
            let connection = id
            BackgroundWorker.decoder.async {
                inbox.post(.decoded(connection: connection, RequestDecoder.decode(bytes)))
            }
            return
        }
        for action in machine.handle(.framed(event)) { perform(action) }
    }

    /// A line decoded off the loop is back: act on it, then on the lines that waited.
    func decoded(_ result: Result<Request, RequestError>) {
        decodingOffLoop = false
        // A connection on its way out (a drain, an over-long line) starts nothing new.
        if !isClosing {
            for action in machine.handle(.decoded(result)) { perform(action) }
            pump()
        } else {
            waitingLines.removeAll()
        }
        updateReading()
        settled()
    }

    /// An answer from an index writer (or `createIndex` / `deleteIndex`).
    func replied(_ bytes: [UInt8]) {
        awaitedReplies -= 1
        write(bytes)
        pump()
        updateReading()
        settled()
    }

    /// Work from off the loop came back: a closing connection may now linger, an ended one
    /// close, a draining daemon stop.
    private func settled() {
        if closeWhenFlushed, nothingToCome, socket != nil, allWritten { wrote() }
        closeIfAllAnswered()
        if loop.draining { loop.finishDrainIfIdle() }
    }
}
