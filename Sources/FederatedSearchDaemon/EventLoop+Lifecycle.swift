#if canImport(Glibc)
import Glibc
import FederatedSearchServer
#endif
import CLibevent

/// Signals, graceful shutdown and the systemd watchdog.
extension EventLoop {
    func installSignals() throws {
        let context = Unmanaged.passUnretained(self).toOpaque()
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            guard let ev = event_new(base, signal, Int16(EV_SIGNAL | EV_PERSIST), onSignal, context) else {
                throw SystemCallError(call: "event_new(signal \(signal))", errno: errno)
            }
            event_add(ev, nil)
            signalEvents.append(ev)
        }
    }

    /// Sends `WATCHDOG=1` every `interval` from the loop itself, so a stuck loop stops the
    /// pings and systemd restarts the daemon.
    func startWatchdog(every interval: Duration) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let ev = event_new(base, -1, Int16(EV_PERSIST), onWatchdog, context) else { return }
        var tv = Self.timeval(interval)
        event_add(ev, &tv)
        timerEvents.append(ev)
    }

    /// Checks every second for requests that have not arrived whole within
    /// `limits.requestReadTimeoutMs` (see ``closeSlowRequests()``).
    func startRequestDeadlines() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let ev = event_new(base, -1, Int16(EV_PERSIST), onRequestDeadlineTick, context) else { return }
        var tv = Self.timeval(.seconds(1))
        event_add(ev, &tv)
        timerEvents.append(ev)
    }

    static func timeval(_ d: Duration) -> Glibc.timeval {
        let c = d.components
        return Glibc.timeval(tv_sec: Int(c.seconds), tv_usec: Int(c.attoseconds / 1_000_000_000_000))
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
            for l in listeners {
                AcceptBackoff.forget(l)
                evconnlistener_disable(l)
            }
        }
        httpListener?.stopAccepting()
        Log.info("signal \(signal): draining \(runningSearchCount) running searches (at most \(config.drainTimeoutMs) ms)")
        let context = Unmanaged.passUnretained(self).toOpaque()
        if let ev = event_new(base, -1, 0, onDrainTimeout, context) {
            var tv = Self.timeval(.milliseconds(config.drainTimeoutMs))
            event_add(ev, &tv)
            timerEvents.append(ev)
        }
        finishDrainIfIdle()
    }

    /// Once nothing runs, closes every connection after its output is flushed; the loop ends
    /// when the last one is gone.
    func finishDrainIfIdle() {
        // Write batches in flight are answered first (and so committed): they are quick.
        guard draining, runningSearchCount == 0, connections.values.allSatisfy(\.isQuiet), httpListener?.isIdle ?? true else {
            return
        }
        if connections.isEmpty {
            stop()
            return
        }
        for c in Array(connections.values) { c.closeAfterFlush() }
    }

    fileprivate func drainTimedOut() {
        Log.warning("drain timeout: stopping with \(runningSearchCount) searches still running")
        stop()
    }
}

private func onSignal(_ signal: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    let loop = Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue()
    if signal == SIGHUP {
        loop.startReload(requester: nil)
    } else {
        loop.beginShutdown(signal: signal)
    }
}

private func onWatchdog(_ fd: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    Systemd.notify("WATCHDOG=1")
}

private func onRequestDeadlineTick(_ fd: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().closeSlowRequests()
}

private func onDrainTimeout(_ fd: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<EventLoop>.fromOpaque(context!).takeUnretainedValue().drainTimedOut()
}
