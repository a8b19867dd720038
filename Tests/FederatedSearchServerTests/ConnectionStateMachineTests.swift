import Testing
import FederatedSearchCore
import FederatedSearchProtocol
@testable import FederatedSearchServer

/// The connection's protocol logic, without a socket: which actions each line produces.
struct ConnectionStateMachineTests {
    func line(_ s: String) -> ConnectionStateMachine.Event { .framed(.line(Array(s.utf8))) }

    func sentFrame(_ actions: [ConnectionStateMachine.Action]) -> Frame? {
        for a in actions { if case .send(let f) = a { return f } }
        return nil
    }

    /// The key and id of `action` if it starts a search.
    func started(_ action: ConnectionStateMachine.Action?) -> (key: UInt64, id: String?)? {
        if case .startSearch(let key, let id, _)? = action { return (key, id) }
        return nil
    }

    /// The frame of `action` if it sends one.
    func sent(_ action: ConnectionStateMachine.Action?) -> Frame? {
        if case .send(let f)? = action { return f }
        return nil
    }

    /// The key of `action` if it cancels a task.
    func cancelled(_ action: ConnectionStateMachine.Action?) -> UInt64? {
        if case .cancel(let key)? = action { return key }
        return nil
    }

    @Test func pingAnswersAtOnce() {
        var m = ConnectionStateMachine()
        let f = sentFrame(m.handle(line(#"{"id":"p","op":"ping"}"#)))
        #expect(f?.type == "pong")
        #expect(f?.id == "p")
    }

    @Test func searchStartsAndCancelFindsIt() throws {
        var m = ConnectionStateMachine()
        let actions = m.handle(line(#"{"id":"q","query":"x"}"#))
        let start = try #require(started(actions.first), "\(actions)")
        try #require(start.id == "q", "\(actions)")
        let key = start.key
        #expect(m.runningRequestKeys == [key])
        let cancel = m.handle(line(#"{"id":"c","op":"cancel","target":"q"}"#))
        // The reply first, then the cancellation (a queued target ends at once, after it).
        let reply = try #require(sent(cancel.first), "\(cancel)")
        #expect(reply.type == "cancel")
        try #require(cancel.count == 2, "\(cancel)")
        let k = try #require(cancelled(cancel.last), "\(cancel)")
        #expect(k == key)
        _ = m.handle(.ended(key: key, id: "q"))
        #expect(m.runningRequestKeys.isEmpty)
        #expect(sentFrame(m.handle(line(#"{"id":"c2","op":"cancel","target":"q"}"#)))?.type == "error")
    }

    @Test func duplicateRunningIDIsRefusedUntilItFinishes() throws {
        var m = ConnectionStateMachine()
        let key = try #require(started(m.handle(line(#"{"id":"q"}"#)).first), "no start").key
        let refusal = sentFrame(m.handle(line(#"{"id":"q"}"#)))
        let e = try #require(
            { () -> SearchError? in
                if case .error(_, _, let e)? = refusal { return e }
                return nil
            }(), "no error")
        #expect(e.code == .duplicateID)
        _ = m.handle(.ended(key: key, id: "q"))
        try #require(started(m.handle(line(#"{"id":"q"}"#)).first) != nil, "not restarted")
    }

    @Test func requestsWithoutIDsRunSideBySide() {
        var m = ConnectionStateMachine()
        _ = m.handle(line(#"{"query":"a"}"#))
        _ = m.handle(line(#"{"query":"b"}"#))
        #expect(m.runningRequestKeys.count == 2)
    }

    @Test func overLongLineSendsErrorThenClosesAndIgnoresTheRest() throws {
        var m = ConnectionStateMachine()
        let actions = m.handle(.framed(.lineTooLong(length: 2_000_000)))
        #expect(sentFrame(actions)?.type == "error")
        let closes = if case .closeAfterFlush? = actions.last { true } else { false }
        try #require(closes, "\(actions)")
        #expect(m.handle(line(#"{"op":"ping"}"#)).isEmpty)
    }
}
