#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchEventLoop
import FederatedSearchServer

/// Signals, graceful shutdown and the systemd watchdog.
extension EventLoop {
    func installSignals() throws {
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            let handler = { [unowned self] in
                if signal == SIGHUP { startReload(requester: nil) } else { beginShutdown(signal: signal) }
            }
            guard let event = LoopEvent(on: base, .signal(signal), handler) else {
                throw SystemCallError(call: "event_new(signal \(signal))", errno: errno)
            }
            event.schedule()
            events.append(event)
        }
    }

    /// Runs `body` every `interval` on the loop thread.
    private func every(_ interval: Duration, _ body: @escaping () -> Void) {
        guard let timer = LoopEvent(on: base, .timer(repeating: true), body) else { return }
        timer.schedule(after: interval)
        events.append(timer)
    }

    /// Sends `WATCHDOG=1` every `interval` from the loop itself, so a stuck loop stops the
    /// pings and systemd restarts the daemon.
    func startWatchdog(every interval: Duration) {
        every(interval) { Systemd.notify("WATCHDOG=1") }
    }

    /// Checks every second for requests that have not arrived whole within
    /// `limits.requestReadTimeoutMs` (see ``closeSlowRequests()``).
    func startRequestDeadlines() {
        every(.seconds(1)) { [unowned self] in closeSlowRequests() }
    }

    /// SIGTERM or SIGINT: let running searches finish within the drain timeout, flush, exit;
    /// a connection opened meanwhile is answered `shutting_down` and closed. A second signal
    /// stops at once.
    func beginShutdown(signal: Int32) {
        if draining {
            Log.warning("second signal \(signal): stopping now")
            stop()
            return
        }
        draining = true
        Systemd.notify("STOPPING=1")
        // With systemd's sockets, a client connecting now waits in systemd's queue for the
        // next instance: stop accepting. With our own, the socket goes with us: accept, and
        // answer `shutting_down` (see `accept`).
        if servesSystemdSockets {
            for l in listeners { l.stopAccepting() }
        }
        httpListener?.stopAccepting()
        // Live subscriptions' event streams never end by themselves.
        httpListener?.endSubscriptionStreams()
        live.stopWatching()
        Log.info("signal \(signal): draining \(searches.running) running searches (at most \(config.drainTimeoutMs) ms)")
        if let timeout = LoopEvent(on: base, .timer(repeating: false), { [unowned self] in drainTimedOut() }) {
            timeout.schedule(after: .milliseconds(config.drainTimeoutMs))
            events.append(timeout)
        }
        finishDrainIfIdle()
    }

    /// Once nothing runs, closes every connection after its output is flushed; the loop ends
    /// when the last one is gone.
    func finishDrainIfIdle() {
        // Write batches in flight are answered first (and so committed): they are quick.
        guard draining, searches.running == 0, connections.values.allSatisfy(\.isQuiet), httpListener?.isIdle ?? true else {
            return
        }
        if connections.isEmpty {
            stop()
            return
        }
        for c in Array(connections.values) { c.closeAfterFlush() }
    }

    private func drainTimedOut() {
        Log.warning("drain timeout: stopping with \(searches.running) searches still running")
        stop()
    }
}
