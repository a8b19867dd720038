/// A view of a numeric range (a slider, two fields).
@MainActor
public protocol NumberRangeController: AnyObject {
    /// Set by the connection: call it with the range the user chooses (nil: clear).
    var onRangeChanged: ((ClosedRange<Double>?) -> Void)? { get set }
    /// Shows the bounds the results span.
    func setBounds(_ bounds: ClosedRange<Double>?)
    /// Shows the range selected.
    func setItem(_ range: ClosedRange<Double>?)
}
