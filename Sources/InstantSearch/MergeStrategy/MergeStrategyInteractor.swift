import FederatedSearchCore

/// Chooses how a federated search's merged list is built (InstantSearch's SortBy, whose
/// choices there are replica indices; here they are the daemon's merge strategies): selecting
/// one sets the searcher's `merge.strategy` and searches again.
@MainActor
public final class MergeStrategyInteractor: ItemInteractor<String> {
    /// One choice: the strategy's name in the protocol, and what a user reads.
    public struct Item: Sendable, Equatable {
        public let strategy: String
        public let label: String

        public init(strategy: String, label: String) {
            self.strategy = strategy
            self.label = label
        }

        /// The daemon's strategies.
        public static let all = [
            Item(strategy: "score", label: "by score"), Item(strategy: "rrf", label: "reciprocal rank fusion"),
            Item(strategy: "roundRobin", label: "round robin"), Item(strategy: "grouped", label: "grouped by index"),
        ]
    }

    public let items: [Item]

    public init(items: [Item] = Item.all, selected: String = "score") {
        self.items = items
        super.init(item: selected)
    }

    /// Selects `strategy` (one of ``items``; another is ignored).
    public func select(_ strategy: String) {
        guard items.contains(where: { $0.strategy == strategy }), strategy != item else { return }
        item = strategy
    }
}
