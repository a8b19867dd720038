import CLibevent
import Dispatch
import FederatedSearchCore
import FederatedSearchProtocol

/// Work of a connection that does not belong on the loop thread: a long request line (a
/// write batch of a megabyte takes milliseconds to parse, which every search on the daemon
/// would wait for) is decoded on a background worker; the lines after it wait, in order, until
/// it is back. Answers from the index writers come back through the inbox too.
extension Connection {
    /// Lines at least this long are decoded off the loop.
    static let offLoopDecodeBytes = 64 * 1024

    func handle(_ event: LineFramer.Event) {
        if linesMustWait {
            decodeBacklog.append(event)
            return
        }
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
        for action in machine.handle(event) { perform(action) }
    }

    /// A line decoded off the loop is back: act on it, then on the lines that waited.
    func decoded(_ result: Result<Request, RequestError>) {
        decodingOffLoop = false
        // A connection on its way out (a drain, an over-long line) starts nothing new.
        if !isClosing {
            for action in machine.handle(decoded: result) { perform(action) }
            resumeWaitingLines()
        } else {
            decodeBacklog.removeAll()
        }
        updateReading()
        settled()
    }

    /// Acts on the lines that waited, then on what is still in libevent's buffer, until they
    /// must wait again.
    func resumeWaitingLines() {
        while !linesMustWait, !decodeBacklog.isEmpty, bufferEvent != nil, !isClosing {
            handle(decodeBacklog.removeFirst())
        }
        if !linesMustWait, !isClosing, let bev = bufferEvent, evbuffer_get_length(bufferevent_get_input(bev)) > 0 {
            // libevent calls back only when more arrives from the socket.
            readAvailable()
        }
    }

    /// An answer from an index writer (or `createIndex` / `deleteIndex`).
    func replied(_ bytes: [UInt8]) {
        awaitedReplies -= 1
        write(bytes)
        resumeWaitingLines()
        updateReading()
        settled()
    }

    /// Work from off the loop came back: a closing connection may now linger, an ended one
    /// close, a draining daemon stop.
    private func settled() {
        if closeWhenFlushed, nothingToCome, bufferEvent != nil, allWritten { wrote() }
        closeIfAllAnswered()
        if loop.draining { loop.finishDrainIfIdle() }
    }
}
