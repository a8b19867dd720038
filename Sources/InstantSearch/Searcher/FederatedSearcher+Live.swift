import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

extension FederatedSearcher {
    /// When a ``FederatedSearcher``'s searches are live subscriptions.
    public enum LiveMode: Sendable, Equatable {
        /// Every search is answered once.
        case off
        /// Every search stays live.
        case on
        /// A search of the empty query stays live: the "what's new" view, where each write
        /// shows; a typed query is answered once.
        case emptyQuery
    }

    /// A live search's changed page, delivered.
    public struct LiveUpdate: Sendable, Equatable {
        /// The source whose page changed (nil: the merged list).
        public let source: String?
        /// The subscription's update number (from 1).
        public let seq: Int
        /// The `objectID`s of the hits new on the page or whose attributes changed there
        /// (``LivePage/freshObjectIDs(from:to:)``).
        public let freshObjectIDs: Set<String>
    }

    /// Whether the next search (and the one shown, if it is live) is a subscription.
    public var isLive: Bool {
        switch liveMode {
        case .off: false
        case .on: true
        case .emptyQuery: (query ?? "").isEmpty
        }
    }

    /// Whether the search shown is a live one.
    public var isShowingLive: Bool { subscription != nil }

    /// Switching live on searches again as a subscription; switching it off ends the
    /// subscription and keeps what it shows.
    func liveModeChanged() {
        if isLive, subscription == nil, lastRequest != nil {
            search()
        } else if !isLive {
            endSubscription()
        }
    }

    /// Ends the live search shown, if any (the daemon is told: `unsubscribe`).
    func endSubscription() {
        guard let live = subscription else { return }
        subscription = nil
        live.handle?.cancel()
        if let first = running.removeValue(forKey: live.seq) {
            first.cancel()
            if !sequencer.ended(live.seq) { isLoading.fire(false) }
        }
    }

    /// The live search answered: it keeps running, but no longer loads.
    func liveAnswered(_ seq: Int) {
        subscription?.handle = running.removeValue(forKey: seq)
        if !sequencer.ended(seq) { isLoading.fire(false) }
    }

    /// Takes a frame of the live search `seq` into the answer held; an update or resync is
    /// delivered as the changed page's results (true). The first answer's frames go on to be
    /// delivered as any search's (false). A frame that does not fit what is held (one was
    /// missed) subscribes again.
    func takeLive(_ frame: Frame, seq: Int) -> Bool {
        guard var live = subscription else { return false }
        let before = live.answer
        let change: LiveAnswer.Change
        do {
            change = try live.answer.take(frame)
        } catch {
            onError.fire(SearcherError(source: nil, code: error.code.rawValue, message: error.message))
            search()
            return true
        }
        subscription = live
        guard case .info = frame else { return false }
        guard case .page(let name) = change else { return true }
        deliverLive(name, before: before, after: live.answer)
        return true
    }

    private func deliverLive(_ name: String?, before: LiveAnswer, after: LiveAnswer) {
        let old = name.map { before.pages[$0] } ?? before.merged
        guard let new = name.map({ after.pages[$0] }) ?? after.merged else { return }
        do {
            if let name {
                guard let results = try after.results(of: name) else { return }
                source(name)?.onResults.fire(results)
                onIndexResults.fire(IndexResults(source: name, results: results, seq: subscription?.seq ?? 0))
            } else if let merged = try after.mergedResults() {
                onMergedResults.fire(merged)
            }
        } catch {
            onError.fire(SearcherError(source: name, code: error.code.rawValue, message: error.message))
            return
        }
        let fresh = LivePage.freshObjectIDs(from: old, to: new)
        onLiveUpdate.fire(LiveUpdate(source: name, seq: after.seq, freshObjectIDs: fresh))
    }
}
