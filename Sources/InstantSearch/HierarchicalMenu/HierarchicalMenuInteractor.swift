import FederatedSearchCore

/// One entry of a hierarchical menu: a value of one level (`Electronics > TV`), shown by its
/// last part (`TV`) at its depth.
public struct HierarchicalItem: Sendable, Equatable {
    /// The whole value, as the level's attribute holds it.
    public let value: String
    /// Its last part, what a user reads.
    public let label: String
    public let count: Int
    /// 0 for the first level.
    public let level: Int
    /// Whether it is on the selected path.
    public let isSelected: Bool
}

/// A hierarchical menu (InstantSearch's HierarchicalMenu): one attribute per level
/// (`categories.lvl0`, `categories.lvl1`, ...), whose values hold the path from the top
/// (`Electronics > TV`). It shows the first level's values and, under each value of the
/// selected path, its children; selecting a value selects its path, selecting a selected
/// one goes back to its parent.
@MainActor
public final class HierarchicalMenuInteractor: ItemInteractor<[HierarchicalItem]> {
    public let attributes: [String]
    public let separator: String
    /// The values selected, from the top (`["Electronics", "Electronics > TV"]`).
    public private(set) var selectedPath: [String] = []
    /// Fired with the path a user's selection asks for (the filter state connection applies it).
    public let onSelectionsComputed = Observer<[String]>()
    /// The counts of each level, as last received.
    private var levels: [[Facet]] = []

    public init(attributes: [String], separator: String = " > ") {
        self.attributes = attributes
        self.separator = separator
        super.init(item: [])
    }

    /// Takes each level's counts (in `attributes` order).
    public func update(levels: [[Facet]]) {
        self.levels = levels
        rebuild()
    }

    /// Sets the selected path (from the filter state).
    public func setSelectedPath(_ path: [String]) {
        guard path != selectedPath else { return }
        selectedPath = path
        rebuild()
    }

    /// The user selected `value`: its path, or, if it was selected, its parent's.
    public func select(_ value: String) {
        let parts = value.components(separatedBy: separator)
        var path = (1...parts.count).map { parts.prefix($0).joined(separator: separator) }
        if selectedPath.contains(value) { path.removeLast() }
        onSelectionsComputed.fire(path)
        if onSelectionsComputed.subscriberCount == 0 { setSelectedPath(path) }
    }

    /// The first level's values, and under each value of the selected path its children.
    private func rebuild() {
        func children(of parent: String?, level: Int) -> [HierarchicalItem] {
            guard level < levels.count else { return [] }
            var out: [HierarchicalItem] = []
            for f in levels[level] {
                let parts = f.value.components(separatedBy: separator)
                guard parts.count == level + 1, parent.map({ f.value.hasPrefix($0 + separator) }) ?? true else { continue }
                let selected = selectedPath.count > level && selectedPath[level] == f.value
                out.append(
                    HierarchicalItem(value: f.value, label: parts.last ?? f.value, count: f.count, level: level, isSelected: selected))
                if selected { out += children(of: f.value, level: level + 1) }
            }
            return out
        }
        item = children(of: nil, level: 0)
    }
}
