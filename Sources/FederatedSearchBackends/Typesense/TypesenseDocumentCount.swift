import FederatedSearchCore
import Synchronization

/// The number of documents in a Typesense collection, as last seen, for the index's
/// description (`indices`, `GET /1/indexes`): every search answer says it (`out_of`), and the
/// collection is asked for it (`num_documents`) when no count was seen for ``maxAge``, in the
/// background, one request at a time and at most once per ``maxAge``, whatever its outcome. A
/// description never waits for it. The same answer gives the schema's field names, so that a
/// filter naming a field the collection lacks matches nothing (as in Algolia) rather than
/// being refused by Typesense.
final class TypesenseDocumentCount: Sendable {
    /// How old a count may be, and how long after the last request, before a description asks
    /// the collection again.
    static let maxAge: Duration = .seconds(5)

    private struct State {
        var count: Int?
        /// The names of the schema's fields as last seen (nil: not seen, or a schema with a
        /// wildcard field, where any name may be a field).
        var fields: Set<String>?
        /// When `count` was seen, and when the collection was last asked.
        var seen: ContinuousClock.Instant?
        var asked: ContinuousClock.Instant?
        var refreshing = false
    }

    private let state = Mutex(State())

    /// The count as last seen (nil: not seen yet).
    var value: Int? { state.withLock { $0.count } }

    /// The schema's field names as last seen (nil: not seen yet, or any name may be a field).
    var fields: Set<String>? { state.withLock { $0.fields } }

    /// Records a count seen now.
    func record(_ count: Int) {
        guard count >= 0 else { return }
        state.withLock {
            $0.count = count
            $0.seen = .now
        }
    }

    /// Whether the caller should ask the collection now (then it must call
    /// ``refreshed(_:askedAt:)``), and the instant it asks at.
    func beginRefresh(now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant? {
        state.withLock { s in
            guard !s.refreshing else { return nil }
            if let seen = s.seen, now - seen < Self.maxAge { return nil }
            if let asked = s.asked, now - asked < Self.maxAge { return nil }
            s.refreshing = true
            s.asked = now
            return now
        }
    }

    /// The collection's answer to a refresh asked at `askedAt` (nil: none could be had). A count
    /// a search saw after the question was asked is newer, and is kept.
    func refreshed(_ count: Int?, fields: Set<String>? = nil, askedAt: ContinuousClock.Instant) {
        state.withLock { s in
            s.refreshing = false
            if let fields { s.fields = fields }
            guard let count, count >= 0 else { return }
            if let seen = s.seen, seen > askedAt { return }
            s.count = count
            s.seen = askedAt
        }
    }
}

extension TypesenseClient {
    /// The field names of a collection's schema (`fields[].name`); nil for a schema with a
    /// wildcard field (`.*`, or a name holding `*`), where any name may be a field.
    static func fieldNames(ofSchema schema: JSONObject) -> Set<String>? {
        guard case .array(let list)? = schema["fields"] else { return nil }
        var names: Set<String> = []
        for case .object(let field) in list {
            guard let name = field["name"]?.stringValue else { continue }
            if name.contains("*") { return nil }
            names.insert(name)
        }
        return names
    }

    /// The collection's document count as last seen, asking the collection again in the
    /// background when it is missing or stale. The question goes to each node in turn until
    /// one answers, once, outside the searches' failover: a node slow to answer it is not
    /// marked unhealthy for it.
    var knownDocumentCount: Int? {
        if let askedAt = documentCount.beginRefresh() {
            Task { [self] in
                var count: Int?
                var fields: Set<String>?
                for node in config.nodes where count == nil {
                    guard let request = try? writeRequest("GET", [])(node),
                        let answer = try? await transport.perform(request, name: name),
                        (200..<300).contains(answer.status),
                        case .object(let o)? = try? JSONParser.parse(answer.body)
                    else { continue }
                    count = o["num_documents"]?.intValue
                    fields = Self.fieldNames(ofSchema: o)
                }
                documentCount.refreshed(count, fields: fields, askedAt: askedAt)
            }
        }
        return documentCount.value
    }
}
