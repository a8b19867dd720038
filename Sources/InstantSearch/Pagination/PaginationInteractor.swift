/// Pages of one index's hits: the page shown, how many there are, and going to another.
@MainActor
public final class PaginationInteractor: ItemInteractor<PaginationInteractor.Pages> {
    /// The page shown (from 0) out of `count`.
    public struct Pages: Sendable, Equatable {
        public var current: Int
        public var count: Int
    }

    /// Fired with the page the user asks for (the searcher connection fetches it).
    public let onPageRequested = Observer<Int>()

    public init() { super.init(item: Pages(current: 0, count: 0)) }

    /// Goes to `page` if it exists.
    public func select(page: Int) {
        guard page >= 0, page < max(1, item.count), page != item.current else { return }
        onPageRequested.fire(page)
    }

    public func next() { select(page: item.current + 1) }
    public func previous() { select(page: item.current - 1) }
}
