import FederatedSearchProtocol

/// Where a request's frames go: its ``Response`` stream, or its main-actor handler.
enum RequestRoute: Sendable {
    case stream(AsyncThrowingStream<[Frame], any Error>.Continuation)
    case mainActor(MainActorRoute)

    func deliver(_ frames: [Frame], ends: Bool) {
        switch self {
        case .stream(let c):
            c.yield(frames)
            if ends { c.finish() }
        case .mainActor(let r): r.deliver(frames, ends: ends)
        }
    }

    var isMainActor: Bool {
        if case .mainActor = self { return true }
        return false
    }

    func fail(_ error: ClientError) {
        switch self {
        case .stream(let c): c.finish(throwing: error)
        case .mainActor(let r): r.fail(error)
        }
    }
}
