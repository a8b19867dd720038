import FederatedSearchProtocol

/// The frames answering one request, in the order the daemon sent them, ending after the frame
/// that ends the request (`done` for a search, the answer itself for other operations, or a
/// request-level `error`). It throws a ``ClientError`` if the connection breaks first.
///
/// Ending the iteration early (a `break`, or the consuming task's cancellation) cancels the
/// request on the daemon.
public struct Response: AsyncSequence, Sendable {
    public typealias Element = Frame
    /// The id the connection gave the request (every frame of the answer carries it).
    public let id: String
    let stream: AsyncThrowingStream<Frame, any Error>

    /// An answer made of `stream`'s frames (a stand-in transport's, in tests).
    public init(id: String, stream: AsyncThrowingStream<Frame, any Error>) {
        self.id = id
        self.stream = stream
    }

    public func makeAsyncIterator() -> AsyncThrowingStream<Frame, any Error>.Iterator { stream.makeAsyncIterator() }

    /// Every frame of the answer, once it has ended.
    public func collect() async throws -> [Frame] {
        var frames: [Frame] = []
        for try await frame in self { frames.append(frame) }
        return frames
    }
}

extension Frame {
    /// Whether this is the last frame of its request.
    public var endsRequest: Bool {
        switch self {
        case .results, .merged: return false
        case .error(_, let index, _): return index == nil
        default: return true
        }
    }
}
