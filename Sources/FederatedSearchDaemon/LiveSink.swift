import FederatedSearchProtocol
import FederatedSearchServer

/// Where a subscriber's frames go, on the loop thread: a socket connection, or an HTTP
/// exchange's event stream (`POST /1/federated/subscribe`).
protocol LiveSink: AnyObject {
    /// The sink's id among the loop's sinks (a connection's id; an HTTP stream's, with the
    /// top bit set so the two never meet).
    var sinkID: UInt64 { get }
    /// The peer whose rights its subscriptions run with.
    var peerIdentity: PeerIdentity? { get }
    /// The largest answer it may be sent (`limits.maxAnswerBytes`).
    var answerByteLimit: Int { get }
    /// Going away: nothing more is sent.
    var isClosing: Bool { get }
    /// More unread than `limits.maxPendingOutputBytes`: updates wait until it reads.
    var hasBacklog: Bool { get }
    /// The token under which a subscription of this sink can be resumed after it went
    /// (an HTTP stream's: a reconnecting browser names it in `Last-Event-ID`); nil: it cannot.
    var resumeToken: String? { get }
    /// Sends one frame's line (newline included).
    func send(_ line: [UInt8])
    /// A subscription's first answer is being searched, and then arrived: a connection counts
    /// it as a search in flight meanwhile (past `limits.maxRequestsPerConnection`, its next
    /// lines wait, pushed back as searches are).
    func firstAnswerStarted()
    func firstAnswerArrived()
}

extension Connection: LiveSink {
    var sinkID: UInt64 { id }
    var answerByteLimit: Int { limits.maxAnswerBytes }
    var hasBacklog: Bool { unsentBytes > limits.maxPendingOutputBytes }
    var resumeToken: String? { nil }
    func send(_ line: [UInt8]) { write(line) }

    func firstAnswerStarted() { firstAnswersPending += 1 }

    func firstAnswerArrived() {
        firstAnswersPending -= 1
        searchSlotFreed()
    }
}
