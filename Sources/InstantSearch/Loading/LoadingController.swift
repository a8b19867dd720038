/// A view of the loading state.
@MainActor
public protocol LoadingController: AnyObject {
    func setItem(_ isLoading: Bool)
}
