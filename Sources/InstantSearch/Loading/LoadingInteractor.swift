/// Whether a search is running (for a spinner).
@MainActor
public final class LoadingInteractor: ItemInteractor<Bool> {
    public init() { super.init(item: false) }
}
