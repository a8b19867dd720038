import FederatedSearchClient
import FederatedSearchProtocol

/// A view of the sources' status.
@MainActor
public protocol SourceStatusController: AnyObject {
    func setItem(_ state: SourceStatusInteractor.State)
}
