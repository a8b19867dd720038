import FederatedSearchCore
import FederatedSearchServer

/// The HTTP API's way to make and remove indices: each request goes to the loop thread through
/// the inbox, is carried out there as the socket's `createIndex` and `deleteIndex` are, and
/// resumes the asking task with the outcome.
struct LoopAdministration: IndexAdministration {
    let inbox: Inbox

    func createIndex(_ name: String, settings: JSONObject) async -> Result<Void, SearchError> {
        await onLoop { loop, resume in
            if case .answered(let outcome) = loop.createIndex(name, settings: settings, searchable: nil, for: .task(resume)) {
                resume(outcome)
            }
        }
    }

    func deleteIndex(_ name: String) async -> Result<Void, SearchError> {
        await onLoop { loop, resume in
            if case .answered(let outcome) = loop.deleteIndex(name, administrator: false, for: .task(resume)) {
                resume(outcome)
            }
        }
    }

    func currentCatalog() async -> Catalog {
        await withCheckedContinuation { done in
            if !inbox.post(.onLoop { loop in done.resume(returning: loop.catalog) }) {
                done.resume(returning: Catalog(entries: []))
            }
        }
    }

    /// Runs `work` on the loop; it calls `resume` once (at once or later) with the outcome.
    private func onLoop(
        _ work: @escaping @Sendable (EventLoop, @escaping @Sendable (Result<Void, SearchError>) -> Void) -> Void
    ) async -> Result<Void, SearchError> {
        await withCheckedContinuation { done in
            let resume: @Sendable (Result<Void, SearchError>) -> Void = { done.resume(returning: $0) }
            if !inbox.post(.onLoop { loop in work(loop, resume) }) {
                resume(.failure(SearchError(.shuttingDown, "the daemon is stopping")))
            }
        }
    }
}
