import Testing
import FederatedSearchCore
import FederatedSearchProtocol
@testable import FederatedSearchDaemon
@testable import FederatedSearchServer

/// The connection's protocol logic, without a socket: which actions each line produces.
struct ConnectionStateMachineTests {
    func line(_ s: String) -> ConnectionStateMachine.Event { .framed(.line(Array(s.utf8))) }

    func sentFrame(_ actions: [ConnectionStateMachine.Action]) -> Frame? {
        for a in actions { if case .send(let f) = a { return f } }
        return nil
    }

    @Test func pingAnswersAtOnce() {
        var m = ConnectionStateMachine()
        let f = sentFrame(m.handle(line(#"{"id":"p","op":"ping"}"#)))
        #expect(f?.type == "pong")
        #expect(f?.id == "p")
    }

    @Test func searchStartsAndCancelFindsIt() {
        var m = ConnectionStateMachine()
        let actions = m.handle(line(#"{"id":"q","query":"x"}"#))
        guard case .startSearch(let key, "q"?, _)? = actions.first else { Issue.record("\(actions)"); return }
        #expect(m.runningRequestKeys == [key])
        let cancel = m.handle(line(#"{"id":"c","op":"cancel","target":"q"}"#))
        // The reply first, then the cancellation (a queued target ends at once, after it).
        guard case .send(let reply)? = cancel.first else { Issue.record("\(cancel)"); return }
        #expect(reply.type == "cancel")
        guard case .cancel(let k)? = cancel.last, cancel.count == 2 else { Issue.record("\(cancel)"); return }
        #expect(k == key)
        _ = m.handle(.ended(key: key, id: "q"))
        #expect(m.runningRequestKeys.isEmpty)
        #expect(sentFrame(m.handle(line(#"{"id":"c2","op":"cancel","target":"q"}"#)))?.type == "error")
    }

    @Test func duplicateRunningIDIsRefusedUntilItFinishes() {
        var m = ConnectionStateMachine()
        guard case .startSearch(let key, _, _)? = m.handle(line(#"{"id":"q"}"#)).first else { Issue.record("no start"); return }
        guard case .error(_, _, let e)? = sentFrame(m.handle(line(#"{"id":"q"}"#))) else { Issue.record("no error"); return }
        #expect(e.code == .duplicateID)
        _ = m.handle(.ended(key: key, id: "q"))
        guard case .startSearch? = m.handle(line(#"{"id":"q"}"#)).first else { Issue.record("not restarted"); return }
    }

    @Test func requestsWithoutIDsRunSideBySide() {
        var m = ConnectionStateMachine()
        _ = m.handle(line(#"{"query":"a"}"#))
        _ = m.handle(line(#"{"query":"b"}"#))
        #expect(m.runningRequestKeys.count == 2)
    }

    @Test func overLongLineSendsErrorThenClosesAndIgnoresTheRest() {
        var m = ConnectionStateMachine()
        let actions = m.handle(.framed(.lineTooLong(length: 2_000_000)))
        #expect(sentFrame(actions)?.type == "error")
        guard case .closeAfterFlush? = actions.last else { Issue.record("\(actions)"); return }
        #expect(m.handle(line(#"{"op":"ping"}"#)).isEmpty)
    }
}
