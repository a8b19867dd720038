/// A "clear filters" button's logic.
@MainActor
public final class FilterClearInteractor {
    /// Fired when the user asks to clear.
    public let onTriggered = Observer<Bool>()
    public var connections: [any Connection] = []

    public init() {}

    /// Clears (what the filter state connection says).
    public func trigger() { onTriggered.fire(true) }
}

/// Which groups a clear empties.
public enum ClearMode: Sendable {
    /// These groups only.
    case specified([FilterGroupID])
    /// Every group but these.
    case except([FilterGroupID])
}
