/// A link between two parts of the library (an interactor and its searcher, controller or
/// filter state), made by a `connect...` method. It is connected when made; ``disconnect()``
/// undoes it, ``connect()`` makes it again.
@MainActor
public protocol Connection: AnyObject {
    func connect()
    func disconnect()
}

/// Several connections made and undone together (a connector's).
@MainActor
public final class CompositeConnection: Connection {
    public let connections: [any Connection]

    public init(_ connections: [any Connection]) { self.connections = connections }

    public func connect() { connections.forEach { $0.connect() } }
    public func disconnect() { connections.forEach { $0.disconnect() } }
}

/// A connection made of two closures, connected when made: what most connections of the
/// library are, and what a custom widget's `connect...` methods return. Each closure gets the
/// connection itself, the subscriber to subscribe with (so `disconnect` cancels exactly what
/// `connect` subscribed).
@MainActor
public final class ClosureConnection: Connection {
    private let onConnect: @MainActor (ClosureConnection) -> Void
    private let onDisconnect: @MainActor (ClosureConnection) -> Void
    public private(set) var isConnected = false

    /// Makes the connection and connects it.
    public init(connect: @escaping @MainActor (ClosureConnection) -> Void, disconnect: @escaping @MainActor (ClosureConnection) -> Void) {
        onConnect = connect
        onDisconnect = disconnect
        self.connect()
    }

    public func connect() {
        guard !isConnected else { return }
        isConnected = true
        onConnect(self)
    }

    public func disconnect() {
        guard isConnected else { return }
        isConnected = false
        onDisconnect(self)
    }
}
