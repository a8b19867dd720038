/// One filter switched on and off ("in stock only", "Drama").
@MainActor
public final class FilterToggleInteractor: ItemInteractor<Bool> {
    public let filter: Filter
    /// Fired with the state the user asked for (the filter state connection applies it).
    public let onSelectionComputed = Observer<Bool>()

    public init(filter: Filter, isSelected: Bool = false) {
        self.filter = filter
        super.init(item: isSelected)
    }

    /// Whether the filter is on (``item``).
    public var isSelected: Bool { item }

    /// The user flips it.
    public func toggle() {
        onSelectionComputed.fire(!item)
        if onSelectionComputed.subscriberCount == 0 { item.toggle() }
    }
}
