import FederatedSearchCore
import FederatedSearchFederation
import FederatedSearchProtocol
import FederatedSearchServer
import Synchronization

/// Where an HTTP request's search runs, as ``QueryPlacement`` places the socket's: a quick
/// in-memory search stays on the loop thread its exchange started on (no hand-off to the
/// global executor and back, each a cross-core wake-up), one at a time; a heavy one, or one
/// while another is on the loop, runs on the global executor.
final class HTTPPlacement: SearchPlacement {
    private let stats: DaemonStats
    /// HTTP searches running on the loop now.
    private let onLoop = Atomic<Int>(0)

    init(stats: DaemonStats) { self.stats = stats }

    /// The placement of one exchange, whose task started on the loop (`startedOnLoop`) or not.
    func forExchange(startedOnLoop: Bool) -> any SearchPlacement {
        startedOnLoop ? OnLoop(placement: self) : OffLoop()
    }

    func run(_ sources: [FederatedSource], _ search: @escaping @Sendable () async -> Frame) async -> Frame {
        await runBlocking(search)
    }

    func runBlocking(_ work: @escaping @Sendable () async -> Frame) async -> Frame {
        await withTaskExecutorPreference(globalConcurrentExecutor) { await work() }
    }

    /// An exchange on the loop: its search stays there if quick and the loop has no other.
    private struct OnLoop: SearchPlacement {
        let placement: HTTPPlacement

        func run(_ sources: [FederatedSource], _ search: @escaping @Sendable () async -> Frame) async -> Frame {
            let quick = QueryPlacement.areQuick(sources, stats: placement.stats)
            guard quick, placement.onLoop.add(1, ordering: .relaxed).oldValue == 0 else {
                if quick { placement.onLoop.subtract(1, ordering: .relaxed) }
                return await placement.run(sources, search)
            }
            defer { placement.onLoop.subtract(1, ordering: .relaxed) }
            return await search()
        }

        func runBlocking(_ work: @escaping @Sendable () async -> Frame) async -> Frame { await placement.runBlocking(work) }
    }

    /// An exchange off the loop (a large body): its search stays there.
    private struct OffLoop: SearchPlacement {
        func run(_ sources: [FederatedSource], _ search: @escaping @Sendable () async -> Frame) async -> Frame {
            await search()
        }

        func runBlocking(_ work: @escaping @Sendable () async -> Frame) async -> Frame { await work() }
    }
}
