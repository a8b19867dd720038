import FederatedSearchServer
/// Whether the event loop, having handled its events, polls a little longer before it sleeps:
/// spin-then-park that spins only while spinning pays off.
///
/// Polling helps when the next event comes within the window: it saves the wake-up of a
/// sleeping core, tens of microseconds on a virtual machine. Once the daemon is idle, the
/// next event is the next request: it comes within the window from a client that sends as
/// soon as it has an answer, and much later from keystrokes 50 ms apart, where the window is
/// wasted. So the policy keeps a moving score of the idle windows that caught a request
/// (each counts 1/8) and polls while at least half did; once it stops, every 16th idle
/// wake-up still polls as a probe, so a client that starts a burst turns polling back on, and
/// a quiet daemon spends at most one window in 16 idle wake-ups.
///
/// While a search runs on another thread, its answer is the next event: the loop polls for
/// it only while polling is on (the score says clients send back to back, where the saved
/// wake-up counts), and sleeps otherwise (polling for every search's answer costs spaced
/// keystrokes daemon CPU for nothing). Such windows are not scored: while some search is always
/// running (a slow remote backend under steady use), the score stays where it was, so the
/// loop keeps polling one window per wake-up, or keeps not polling, until it is next idle.
struct SpinPolicy: Equatable {
    /// The score is a fraction of `full`; polling goes on at `full / 2` or more.
    static let full = 256
    /// When polling is off, one wake-up in this many polls anyway.
    static let probeEvery = 16

    private(set) var score = SpinPolicy.full
    private var sincePoll = 0

    /// Whether polling is on: at least half of the recent idle windows caught a request.
    var isOn: Bool { score >= Self.full / 2 }

    /// Called after each wake-up: whether to poll now. `searching`: a search is running off
    /// the loop; the loop polls for its answer only while polling is on, and the wake-up does
    /// not count toward the probe.
    mutating func shouldPoll(searching: Bool = false) -> Bool {
        if searching { return isOn }
        if isOn {
            sincePoll = 0
            return true
        }
        sincePoll += 1
        if sincePoll >= Self.probeEvery {
            sincePoll = 0
            return true
        }
        return false
    }

    /// An event arrived while the idle loop was polling (the window starts again).
    mutating func caught() { score += (Self.full - score) >> 3 }

    /// A whole window of the idle loop passed without an event (the loop goes to sleep).
    mutating func missed() { score -= (score + 7) >> 3 }
}
