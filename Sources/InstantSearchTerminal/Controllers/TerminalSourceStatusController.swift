import FederatedSearchClient
import FederatedSearchProtocol
import InstantSearch

/// The built-in status line: each source's state and time (`movies ok 0.41 ms`,
/// `products timeout 500 ms`), the request's total, and the daemon's state when it cannot be
/// reached, with what to do about it.
@MainActor
public final class TerminalSourceStatusController: SourceStatusController, TerminalPane {
    public var onNeedsDisplay: (() -> Void)?
    public let title = "Status"
    public var isFocusable: Bool { false }
    /// Said when the daemon cannot be reached.
    public var unreachableHint: String
    public private(set) var state = SourceStatusInteractor.State()

    public init(unreachableHint: String = "is fedsearchd running? (`make run` starts the demo)") {
        self.unreachableHint = unreachableHint
    }

    public func setItem(_ state: SourceStatusInteractor.State) {
        self.state = state
        onNeedsDisplay?()
    }

    public func handle(_ key: Key) -> Bool { false }

    /// The state and time of one source in the last report, for its column.
    public func sourceState(_ name: String) -> (text: String, style: Style)? {
        guard let item = state.last?.sources.first(where: { $0.name == name }) else { return nil }
        return Self.describe(item.report)
    }

    static func describe(_ r: SourceReport) -> (text: String, style: Style) {
        let ms = DisplayFormat.milliseconds(r.ms)
        switch r.status {
        case .ok: return ("ok \(ms) ms", .ok)
        case .skipped:
            let wait = r.suspendedForMs.map { " for \(Int($0)) ms" } ?? ""
            return ("skipped: breaker open\(wait)", .error)
        case .timeout: return ("timeout after \(ms) ms", .error)
        case .error: return ("error \(r.errorCode?.rawValue ?? "") after \(ms) ms", .error)
        case .cancelled, .superseded: return (r.status.rawValue, .dim)
        }
    }

    public func draw(on canvas: any Canvas, in rect: Rect, focused: Bool) {
        guard rect.height > 0 else { return }
        var runs: [(String, Style)] = []
        switch state.connection {
        case .disconnected(let reason, let retry):
            let wait = retry < 1000 ? "\(retry) ms" : "\(DisplayFormat.number((Double(retry) / 100).rounded() / 10)) s"
            runs = [("stale: daemon unreachable", .error), (", retrying in \(wait) — \(unreachableHint) — ", .normal), (reason, .dim)]
        case .closed:
            runs = [("connection closed", .error)]
        default:
            if let e = state.error {
                runs = [("error: ", .error), ("\(e.message) [\(e.code)]", .normal)]
            } else if let last = state.last {
                for (i, s) in last.sources.enumerated() {
                    if i > 0 { runs.append((" · ", .dim)) }
                    let d = Self.describe(s.report)
                    runs += [(s.name + " ", .bold), (d.text, d.style)]
                }
                runs += [("  total \(DisplayFormat.oneDecimal(last.ms)) ms", .dim)]
            } else {
                runs = [("ready", .dim)]
            }
            if state.isLoading { runs.append(("  searching…", .dim)) }
        }
        canvas.putRuns(runs, y: rect.y, x: rect.x, width: rect.width)
    }
}
