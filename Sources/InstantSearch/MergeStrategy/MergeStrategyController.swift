import FederatedSearchCore

/// A view of the merge strategies: it shows them with the selected one, and reports a choice.
@MainActor
public protocol MergeStrategyController: AnyObject {
    func setItems(_ items: [MergeStrategyInteractor.Item], selected: String)
    var onSelect: ((String) -> Void)? { get set }
}
