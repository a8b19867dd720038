import FederatedSearchEventLoop
import FederatedSearchProtocol

/// The `watch` op's watches, on the loop thread: each one's indices and sink. A change of an
/// index is told to each watch of it as a `changed` frame; while a watch's sink has a backlog,
/// it is held back (once per index) and told once the sink reads.
final class IndexWatchers {
    private unowned let loop: EventLoop
    private var watchers: [LiveSubscriptions.Key: (indices: [String], sink: any LiveSink)] = [:]
    private var byIndex: [String: Set<LiveSubscriptions.Key>] = [:]
    private var owed: [LiveSubscriptions.Key: Set<String>] = [:]
    private var owedTimer: LoopEvent?
    /// `changed` frames sent (for `stats`).
    private(set) var sent = 0

    init(loop: EventLoop) { self.loop = loop }

    var count: Int { watchers.count }
    /// The indices watched.
    var indices: Set<String> { Set(byIndex.keys) }

    func contains(_ key: LiveSubscriptions.Key) -> Bool { watchers[key] != nil }

    func add(_ key: LiveSubscriptions.Key, indices: [String], sink: any LiveSink) {
        watchers[key] = (indices, sink)
        for index in indices { byIndex[index, default: []].insert(key) }
    }

    /// Ends watch `key`; false if there is none.
    func remove(_ key: LiveSubscriptions.Key) -> Bool {
        guard let w = watchers.removeValue(forKey: key) else { return false }
        for index in w.indices {
            byIndex[index]?.remove(key)
            if byIndex[index]?.isEmpty == true { byIndex[index] = nil }
        }
        owed[key] = nil
        return true
    }

    /// `index` changed: its watches are told.
    func changed(_ index: String) {
        for key in byIndex[index] ?? [] { tell(key, index) }
    }

    /// Anything may have changed (a reload): every watch is told of each of its indices.
    func changedAll() {
        for (key, w) in watchers {
            for index in w.indices { tell(key, index) }
        }
    }

    private func tell(_ key: LiveSubscriptions.Key, _ index: String) {
        guard let sink = watchers[key]?.sink, !sink.isClosing else { return }
        if sink.hasBacklog {
            owed[key, default: []].insert(index)
            if owedTimer == nil {
                owedTimer = LoopEvent(on: loop.base, .timer(repeating: false)) { [weak self] in self?.tellOwed() }
            }
            owedTimer?.schedule(after: LiveSubscriptions.backlogRetry)
            return
        }
        sink.send(LiveSubscriptions.line(["id": RequestID.json(key.id), "type": "changed", "index": .string(index)]))
        sent += 1
    }

    private func tellOwed() {
        let held = owed
        owed = [:]
        for (key, indices) in held where watchers[key] != nil {
            for index in indices.sorted() { tell(key, index) }
        }
    }
}
