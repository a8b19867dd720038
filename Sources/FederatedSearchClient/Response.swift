import FederatedSearchProtocol

/// The frames answering one request, in the order the daemon sent them, ending after the frame
/// that ends the request (`done` for a search, the answer itself for other operations, or a
/// request-level `error`). It throws a ``ClientError`` if the connection breaks first.
///
/// ``DaemonConnection`` hands over the frames that arrived together in one batch, so a
/// consumer on an actor resumes once per batch, not once per frame, and iterating never
/// leaves the consumer's actor (the iterator implements `next(isolation:)`).
///
/// Ending the iteration early (a `break`, or the consuming task's cancellation) cancels the
/// request on the daemon.
public struct Response: AsyncSequence, Sendable {
    public typealias Element = Frame
    public typealias Failure = any Error
    /// The id the connection gave the request (every frame of the answer carries it).
    public let id: String
    private let source: Source

    private enum Source: Sendable {
        case frames(AsyncThrowingStream<Frame, any Error>)
        case batches(AsyncThrowingStream<[Frame], any Error>)
    }

    /// An answer made of `stream`'s frames (a stand-in transport's, in tests).
    public init(id: String, stream: AsyncThrowingStream<Frame, any Error>) {
        self.id = id
        self.source = .frames(stream)
    }

    /// An answer whose frames arrive in batches (the connection's own).
    init(id: String, batches: AsyncThrowingStream<[Frame], any Error>) {
        self.id = id
        self.source = .batches(batches)
    }

    public func makeAsyncIterator() -> AsyncIterator {
        switch source {
        case .frames(let s): AsyncIterator(frames: s.makeAsyncIterator())
        case .batches(let s): AsyncIterator(batches: s.makeAsyncIterator())
        }
    }

    /// Steps through the frames, one batch at a time.
    public struct AsyncIterator: AsyncIteratorProtocol {
        private var frames: AsyncThrowingStream<Frame, any Error>.Iterator?
        private var batches: AsyncThrowingStream<[Frame], any Error>.Iterator?
        /// The current batch and the position of its next frame.
        private var batch: [Frame] = []
        private var next = 0

        init(frames: AsyncThrowingStream<Frame, any Error>.Iterator) { self.frames = frames }
        init(batches: AsyncThrowingStream<[Frame], any Error>.Iterator) { self.batches = batches }

        public mutating func next() async throws -> Frame? { try await next(isolation: nil) }

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(any Error) -> Frame? {
            if next < batch.count {
                defer { next += 1 }
                return batch[next]
            }
            if frames != nil { return try await frames!.next(isolation: actor) }
            while let b = try await batches!.next(isolation: actor) {
                guard let first = b.first else { continue }
                batch = b
                next = 1
                return first
            }
            return nil
        }
    }

    /// Every frame of the answer, once it has ended.
    public func collect() async throws -> [Frame] {
        var frames: [Frame] = []
        for try await frame in self { frames.append(frame) }
        return frames
    }
}
