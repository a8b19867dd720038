/// An interactor holding one value that its controllers show (the base of Stats, Loading,
/// SourceStatus and others): setting ``item`` fires ``onItemChanged``.
@MainActor
open class ItemInteractor<Item: Sendable> {
    /// The value shown.
    public var item: Item {
        didSet { onItemChanged.fire(item) }
    }
    /// Fired with the new value after each change.
    public let onItemChanged = Observer<Item>()
    /// The connections made by `connect...`, kept as long as the interactor lives.
    public var connections: [any Connection] = []

    public init(item: Item) { self.item = item }

    /// Keeps `connection` with the interactor and returns it.
    @discardableResult
    public func keep<C: Connection>(_ connection: C) -> C {
        connections.append(connection)
        return connection
    }
}
