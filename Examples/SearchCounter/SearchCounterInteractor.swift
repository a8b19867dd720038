import InstantSearch

/// A custom widget, written as the built-in ones are: it counts the searches a searcher has
/// sent since its controller last reset it (docs/CLIENT.md, "Writing your own widget").
///
/// The interactor holds the state and the logic; ``SearchCounterController`` is how it is
/// shown; `connectSearcher` and `connectController` wire it.
@MainActor
public final class SearchCounterInteractor: ItemInteractor<Int> {
    public init() { super.init(item: 0) }

    /// One more search.
    public func increment() { item += 1 }

    /// Back to zero.
    public func reset() { item = 0 }
}

/// What shows the count, and lets the user reset it.
@MainActor
public protocol SearchCounterController: AnyObject {
    /// Set by the connection: call it when the user asks for a reset.
    var onReset: (() -> Void)? { get set }
    /// Shows the count.
    func setCount(_ count: Int)
}

extension SearchCounterInteractor {
    /// Counts every search `searcher` sends.
    @discardableResult
    public func connectSearcher(_ searcher: some Searcher) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak searcher] token in
                    searcher?.onSearch.subscribe(with: token) { [weak self] _, _ in self?.increment() }
                },
                disconnect: { [weak searcher] token in searcher?.onSearch.cancelSubscription(for: token) }))
    }

    /// Shows the count in `controller`, and resets it when the controller asks.
    @discardableResult
    public func connectController(_ controller: some SearchCounterController) -> any Connection {
        keep(
            ClosureConnection(
                connect: { [weak self, weak controller] token in
                    guard let self, let controller else { return }
                    controller.setCount(self.item)
                    controller.onReset = { [weak self] in self?.reset() }
                    self.onItemChanged.subscribe(with: token) { [weak controller] _, n in controller?.setCount(n) }
                },
                disconnect: { [weak self, weak controller] token in
                    controller?.onReset = nil
                    self?.onItemChanged.cancelSubscription(for: token)
                }))
    }
}
