import FederatedSearchCore
import FederatedSearchEventLoop
import FederatedSearchProtocol
import FederatedSearchServer

/// What the live subscriptions keep: each subscription's state, and each group's (the search
/// its subscriptions share).
extension LiveSubscriptions {
    /// A subscription: its connection and its id there.
    struct Key: Hashable, Sendable {
        var connection: UInt64
        var id: String
    }

    /// What makes subscriptions run one search for all of them: the request as sent, the
    /// peer's user and group (its rights), the indices it resolves to, the page bound and the
    /// interval.
    struct Shared: Hashable, Sendable {
        var request: [UInt8]
        var peer: UInt64?
        var indices: [String]
        var answerByteLimit: Int
        var minIntervalMs: Int
        /// Set for a search under a secured API key's restriction (not in the request's line):
        /// such a subscription shares its run with none.
        var alone: Int?
    }

    final class Subscription {
        let key: Key
        /// Tells this subscription's first answer from an earlier one's under the same key.
        let serial: Int
        let shared: Shared
        var seq = 0
        /// What the client holds: each source's page, and the merged list's.
        var pages: [String: LivePage] = [:]
        var merged: LivePage?
        /// Its first answer went out: updates may follow.
        var answered = false
        /// The group's runs started before its first answer's: older than that answer, so
        /// never diffed against it.
        var runsBefore = 0
        /// The index behind each source name (`as` may rename one).
        var sourceIndices: [String: String] = [:]
        /// Its sink's resume token (an HTTP stream's), under which it is parked when it goes.
        var token: String?
        /// Resumed from a parked subscription: the last `seq` the client took. Its first
        /// answer is then sent as what changed since (see ``firstAnswer``).
        var resumedAt: Int?

        init(key: Key, serial: Int, shared: Shared) {
            self.key = key
            self.serial = serial
            self.shared = shared
        }
    }

    /// The search of every subscription that shares it, run again after writes.
    final class Group {
        let shared: Shared
        /// Tells this group's runs from those of an earlier one with the same key.
        let serial: Int
        let request: SearchRequest
        let peer: PeerIdentity?
        /// The indices its search resolved to last (`indices` left out means every index the
        /// peer may search, which a reload or `createIndex` changes).
        var indices: Set<String>
        let minInterval: Duration
        var members: Set<Key> = []
        /// Runs started so far.
        var runsStarted = 0
        var lastRun: ContinuousClock.Instant?
        /// A write landed since the last run began.
        var dirty = false
        var running = false
        /// Its last run's frames, for subscribers that had a backlog then (`owed`).
        var lastAnswer: [RunFrame]?
        var owed: Set<Key> = []
        var catchUpTimer: LoopEvent?
        var timer: LoopEvent?
        var timerArmed = false
        /// Its sources' queries as last planned, by index: what a write's probe is tried on.
        var queries: [String: [SearchQuery]] = [:]
        /// Its indices' shortest `pollIntervalMs`, and the timer that runs it that often.
        var pollInterval: Duration?
        var pollTimer: LoopEvent?

        init(shared: Shared, serial: Int, request: SearchRequest, peer: PeerIdentity?, indices: Set<String>) {
            self.shared = shared
            self.serial = serial
            self.request = request
            self.peer = peer
            self.indices = indices
            minInterval = .milliseconds(shared.minIntervalMs)
        }
    }
}
