/// Names one searchable hosted by the daemon, as InstantSearch's `SearcherId(index:)` does.
public struct SearcherId: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The index name, unique within one daemon.
    public let index: String

    public init(index: String) { self.index = index }

    public var description: String { index }

    public static func < (a: SearcherId, b: SearcherId) -> Bool { a.index < b.index }
}
