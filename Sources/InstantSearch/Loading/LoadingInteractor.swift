/// Whether a search is running (for a spinner).
@MainActor
public final class LoadingInteractor: ItemInteractor<Bool> {
    public init() { super.init(item: false) }
}

/// A view of the loading state.
@MainActor
public protocol LoadingController: AnyObject {
    func setItem(_ isLoading: Bool)
}

extension LoadingInteractor {
    /// Follows `searcher`'s ``Searcher/isLoading``.
    @discardableResult
    public func connectSearcher(_ searcher: some Searcher) -> any Connection {
        keep(ClosureConnection(connect: { [weak self, weak searcher] connection in
            guard self != nil, let searcher else { return }
            searcher.isLoading.subscribePast(with: connection) { [weak self] _, loading in self?.item = loading }
        }, disconnect: { [weak searcher] connection in searcher?.isLoading.cancelSubscription(for: connection) }))
    }

    /// Shows the state in `controller`.
    @discardableResult
    public func connectController(_ controller: some LoadingController) -> any Connection {
        keep(ClosureConnection(connect: { [weak self, weak controller] connection in
            guard let self, let controller else { return }
            controller.setItem(self.item)
            self.onItemChanged.subscribe(with: connection) { [weak controller] _, l in controller?.setItem(l) }
        }, disconnect: { [weak self] connection in self?.onItemChanged.cancelSubscription(for: connection) }))
    }
}
