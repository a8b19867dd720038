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
        if decodingOffLoop {
            decodeBacklog.append(event)
            return
        }
        if case .line(let bytes) = event, bytes.count >= Self.offLoopDecodeBytes, !machine.closing {
            decodingOffLoop = true
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
        for action in machine.handle(decoded: result) { perform(action) }
        while !decodingOffLoop, !decodeBacklog.isEmpty, bufferEvent != nil {
            handle(decodeBacklog.removeFirst())
        }
        closeIfAllAnswered()
    }

    /// An answer from an index writer.
    func replied(_ bytes: [UInt8]) {
        awaitedReplies -= 1
        write(bytes)
        closeIfAllAnswered()
    }
}
