/// A numeric range refinement ("year from 1990 to 1999"): the bounds the results span and the
/// range selected.
@MainActor
public final class NumberRangeInteractor: ItemInteractor<ClosedRange<Double>?> {
    /// The smallest and largest values among the hits (from `facets_stats`).
    public private(set) var bounds: ClosedRange<Double>?
    /// Fired with new bounds.
    public let onBoundsChanged = Observer<ClosedRange<Double>?>()
    /// Fired with the range the user chose (the filter state connection applies it).
    public let onNumberRangeComputed = Observer<ClosedRange<Double>?>()

    public init(range: ClosedRange<Double>? = nil) { super.init(item: range) }

    /// The range selected (``item``); nil: no refinement.
    public var range: ClosedRange<Double>? { item }

    /// Takes new bounds.
    public func applyBounds(_ bounds: ClosedRange<Double>?) {
        self.bounds = bounds
        onBoundsChanged.fire(bounds)
    }

    /// The user chose `range` (nil: clear), clamped to the bounds when both are known.
    public func select(_ range: ClosedRange<Double>?) {
        var chosen = range
        if let r = range, let b = bounds {
            let lower = min(max(r.lowerBound, b.lowerBound), b.upperBound)
            chosen = lower...max(lower, min(r.upperBound, b.upperBound))
        }
        onNumberRangeComputed.fire(chosen)
        if onNumberRangeComputed.subscriberCount == 0 { item = chosen }
    }
}
