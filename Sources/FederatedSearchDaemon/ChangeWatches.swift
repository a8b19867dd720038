import FederatedSearchCore
import FederatedSearchEventLoop
import FederatedSearchServer

/// The watches of the sources that announce their changes (a PostgreSQL table's `LISTEN`, a
/// remote fedsearchd's `watch`), for the live subscriptions, on the loop thread; and how each
/// index is kept fresh for them.
///
/// A watch runs while its index is followed (``follow(_:)``: it has subscriptions or watches
/// on it), and starts again when a reload rebuilt the index. Each change it announces runs the
/// index's subscriptions again (``LiveSubscriptions/indexChanged(_:changes:)``); while it is
/// down (``ChangeWatch/problem``), they are run every ``downPoll`` instead.
final class ChangeWatches {
    /// How often the searches on an index whose watch is down run again.
    static let downPoll = Duration.seconds(1)

    private unowned let loop: EventLoop
    /// By index, with the catalog entry's fingerprint the watch was started for.
    private var watches: [String: (fingerprint: String, watch: any ChangeWatch)] = [:]
    /// Set once the daemon drains: no watch starts again.
    private var stopped = false
    /// Made with the first watch, then kept: a timer is not freed from a callback that may be
    /// its own.
    private var downTimer: LoopEvent?

    init(loop: EventLoop) { self.loop = loop }

    /// Watches exactly the indices of `indices` whose source can announce its changes.
    func follow(_ indices: Set<String>) {
        guard !stopped else { return }
        for (index, w) in watches where !indices.contains(index) || loop.catalog.entry(index)?.fingerprint != w.fingerprint {
            w.watch.stop()
            watches[index] = nil
        }
        for index in indices where watches[index] == nil {
            guard let entry = loop.catalog.entry(index), let source = entry.searchable as? any ChangeAnnouncingSearchable else {
                continue
            }
            let inbox: Inbox = loop.inbox
            if let watch = source.watchChanges({ inbox.post(.onLoop { $0.live.indexChanged(index) }) }) {
                watches[index] = (entry.fingerprint, watch)
                pollDownWatches()
            }
        }
    }

    private func pollDownWatches() {
        guard downTimer == nil else { return }
        downTimer = LoopEvent(on: loop.base, .timer(repeating: true)) { [weak self] in
            guard let self else { return }
            for (index, w) in self.watches where w.watch.problem != nil { self.loop.live.runAgain(on: index) }
        }
        downTimer?.schedule(after: Self.downPoll)
    }

    /// Stops every watch, for good (the daemon drains).
    func stop() {
        stopped = true
        for w in watches.values { w.watch.stop() }
        watches = [:]
    }

    /// How `index` is kept fresh for its subscriptions: `push` (a durable index tells of each
    /// write; a source that announces its changes says how, and `problem` while its watch is
    /// down), `poll` (searched again every `intervalMs`), or `none` (only a reload runs them
    /// again).
    func freshness(of index: String) -> JSONValue? {
        guard let entry = loop.catalog.entry(index) else { return nil }
        if entry.searchable is DurableIndex { return ["kind": "push"] }
        if let source = entry.searchable as? any ChangeAnnouncingSearchable, let feed = source.changeFeed {
            var o: JSONObject = ["kind": "push"]
            for e in feed { o.appendUnchecked(e.key, e.value) }
            if let problem = watches[index]?.watch.problem { o.appendUnchecked("problem", .string(problem)) }
            return .object(o)
        }
        guard let poll = entry.pollInterval else { return ["kind": "none"] }
        let c = poll.components
        return ["kind": "poll", "intervalMs": .number(Double(c.seconds * 1000 + c.attoseconds / 1_000_000_000_000_000))]
    }
}
