import FederatedSearchCore
import Synchronization

/// The number of documents in a Typesense collection, as last seen, for the index's
/// description (`indices`, `GET /1/indexes`): every search answer says it (`out_of`), and the
/// collection is asked for it (`num_documents`) when the count is missing or older than
/// ``maxAge``, in the background, one request at a time. A description never waits for it.
final class TypesenseDocumentCount: Sendable {
    /// How old a count may be before the next description asks the collection again.
    static let maxAge: Duration = .seconds(5)

    private struct State {
        var count: Int?
        var seen: ContinuousClock.Instant?
        var refreshing = false
    }

    private let state = Mutex(State())

    /// The count as last seen (nil: not seen yet).
    var value: Int? { state.withLock { $0.count } }

    /// Records a count seen now.
    func record(_ count: Int) {
        guard count >= 0 else { return }
        state.withLock {
            $0.count = count
            $0.seen = .now
        }
    }

    /// Whether the caller should ask the collection now: the count is missing or stale and no
    /// request is out. A true answer must be followed by ``refreshed(_:)``.
    func beginRefresh(now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { s in
            guard !s.refreshing else { return false }
            if let seen = s.seen, now - seen < Self.maxAge { return false }
            s.refreshing = true
            return true
        }
    }

    /// The collection's answer to a refresh (nil: it could not be had; tried again later).
    func refreshed(_ count: Int?) {
        state.withLock { s in
            s.refreshing = false
            if let count, count >= 0 {
                s.count = count
                s.seen = .now
            }
        }
    }
}

extension TypesenseClient {
    /// The collection's document count as last seen, asking the collection again in the
    /// background when it is missing or stale.
    var knownDocumentCount: Int? {
        if documentCount.beginRefresh() {
            Task { [self] in
                let answer = try? await send(deadline: .now + config.connectionTimeout, writeRequest("GET", []))
                let count = answer.flatMap { a -> Int? in
                    guard (200..<300).contains(a.status), case .object(let o)? = try? JSONParser.parse(a.data) else { return nil }
                    return o["num_documents"]?.intValue
                }
                documentCount.refreshed(count)
            }
        }
        return documentCount.value
    }
}
