import Testing
import Synchronization
import FederatedSearchCore
@testable import FederatedSearchFederation

/// A searchable for fault injection: waits, fails, or ignores cancellation.
struct ScriptedSearchable: Searchable {
    enum Behaviour: Sendable {
        case answer(after: Duration)
        case fail
        case ignoreCancellation(for: Duration)
    }
    let behaviour: Behaviour
    /// Counts the searches begun (in `started`), for a test that waits until they run.
    var rendezvous: Rendezvous? = nil
    var description: SearchableDescription {
        SearchableDescription(kind: "test", documentCount: 0, searchableAttributes: [], attributesForFaceting: [])
    }
    func search(_ query: SearchQuery) async throws -> SearchResults {
        rendezvous?.started.add(1, ordering: .releasing)
        switch behaviour {
        case .answer(let d): try await Task.sleep(for: d)
        case .fail: throw SearchError(.backendError, "boom")
        case .ignoreCancellation(let d):
            let end = ContinuousClock.now + d
            while ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(10)) }
        }
        return SearchResults(hits: [Hit(objectID: "x", attributes: JSONObject(), rankingScore: 1)], nbHits: 1)
    }
}

extension SourceOutcome {
    /// Whether the source timed out.
    fileprivate var isTimedOut: Bool {
        if case .timedOut = self { return true }
        return false
    }

    /// Whether the source answered.
    fileprivate var hasResults: Bool {
        if case .results = self { return true }
        return false
    }

    /// The source's error, if it failed.
    fileprivate var failure: SearchError? {
        if case .failed(let e) = self { return e }
        return nil
    }
}

/// Fan-out: completion order, deadlines, failures and cancellation.
struct FanOutTests {
    func source(
        _ name: String, _ b: ScriptedSearchable.Behaviour, timeout: Duration = .seconds(5), rendezvous: Rendezvous? = nil
    ) -> FederatedSource {
        FederatedSource(
            name: name, searchable: ScriptedSearchable(behaviour: b, rendezvous: rendezvous), query: SearchQuery(text: "q"),
            timeout: timeout)
    }

    @Test func reportsInCompletionOrderAndReturnsInSourceOrder() async {
        let order = Mutex<[String]>([])
        // Slow by far more than a loaded machine delays the fast one.
        let result = await FanOut.run([source("slow", .answer(after: .seconds(1))), source("fast", .answer(after: .zero))]) {
            c in order.withLock { $0.append(c.name) }
        }
        #expect(order.withLock { $0 } == ["fast", "slow"])
        #expect(result.map(\.name) == ["slow", "fast"])
    }

    @Test func lateSourceTimesOutOthersStand() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let result = await FanOut.run([
            source("late", .answer(after: .seconds(10)), timeout: .milliseconds(50)), source("ok", .answer(after: .zero)),
        ]) { _ in }
        #expect(clock.now - start < .seconds(5))
        try #require(result[0].outcome.isTimedOut && result[1].outcome.hasResults, "outcomes \(result.map(\.outcome))")
    }

    @Test func deadlineHoldsEvenIfTheSourceIgnoresCancellation() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let result = await FanOut.run([source("stuck", .ignoreCancellation(for: .seconds(3)), timeout: .milliseconds(50))]) { _ in }
        #expect(clock.now - start < .seconds(2))
        try #require(result[0].outcome.isTimedOut, "\(result[0].outcome)")
    }

    @Test func failureIsReportedAsItsError() async throws {
        let result = await FanOut.run([source("bad", .fail)]) { _ in }
        let e = try #require(result[0].outcome.failure, "\(result[0].outcome)")
        #expect(e.code == .backendError)
    }

    @Test func cancellingTheCallerCancelsEverySource() async {
        let r = Rendezvous()
        let sources = [
            source("a", .answer(after: .seconds(10)), rendezvous: r), source("b", .answer(after: .seconds(10)), rendezvous: r),
        ]
        let task = Task { await FanOut.run(sources) { _ in } }
        // Cancelled while both sources run, not before they start.
        let deadline = ContinuousClock.now + .seconds(10)
        while r.started.load(ordering: .acquiring) < 2, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        #expect(r.started.load(ordering: .acquiring) == 2, "the sources did not start within 10 s")
        task.cancel()
        let result = await task.value
        #expect(result.count == 2)
        for c in result {
            guard case .cancelled = c.outcome else {
                Issue.record("\(c.name): \(c.outcome)")
                continue
            }
        }
    }
}

/// Flags shared by the sources of one test.
final class Rendezvous: Sendable {
    let started = Atomic<Int>(0)
    let othersStarted = Atomic<Int>(0)
    let keptSawOthers = Atomic<Bool>(false)
}

/// An in-memory searchable that busy-waits (a CPU-bound search). The `waitsForOthers` one
/// spins until another source has started (at most 10 s): it only returns early when the
/// others really run at the same time as it does.
struct SpinningInline: InlineSearchable {
    let spin: Duration
    let name: String
    let rendezvous: Rendezvous
    let waitsForOthers: Bool
    var description: SearchableDescription {
        SearchableDescription(kind: "test", documentCount: 0, searchableAttributes: [], attributesForFaceting: [])
    }
    func search(_ query: SearchQuery) async throws -> SearchResults { try searchInline(query) }
    func searchInline(_ query: SearchQuery) throws -> SearchResults {
        if waitsForOthers {
            let end = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < end {
                if rendezvous.othersStarted.load(ordering: .acquiring) > 0 {
                    rendezvous.keptSawOthers.store(true, ordering: .releasing)
                    break
                }
            }
        } else {
            rendezvous.othersStarted.add(1, ordering: .releasing)
            let end = ContinuousClock.now + spin
            while ContinuousClock.now < end {}
        }
        return SearchResults(hits: [Hit(objectID: name, attributes: JSONObject(), rankingScore: 1)], nbHits: 1)
    }
}

/// The inline modes: sequential runs the sources one after another on the calling task,
/// parallel in a child task each.
@Suite(.serialized) struct FanOutInlineModeTests {
    func sources(_ count: Int, keptWaits: Bool, _ r: Rendezvous) -> [FederatedSource] {
        (0..<count).map { i in
            FederatedSource(
                name: "s\(i)",
                searchable: SpinningInline(spin: .milliseconds(5), name: "s\(i)", rendezvous: r, waitsForOthers: keptWaits && i == 0),
                query: SearchQuery(text: "q"), timeout: .seconds(30))
        }
    }

    /// `prepare` sees every completion exactly once, before `onCompletion` does, in every
    /// mode, for in-memory and remote sources alike.
    @Test(arguments: [FanOut.InlineMode.sequential, .parallel])
    func prepareSeesEachCompletionOnceAndFirst(mode: FanOut.InlineMode) async {
        let r = Rendezvous()
        var all = sources(4, keptWaits: false, r)
        all.append(
            FederatedSource(
                name: "remote", searchable: ScriptedSearchable(behaviour: .answer(after: .milliseconds(1))),
                query: SearchQuery(text: "q"), timeout: .seconds(30)))
        let prepared = Mutex<[String]>([])
        let reportedUnprepared = Mutex<[String]>([])
        let reported = Mutex<[String]>([])
        let result = await FanOut.run(
            all, inline: mode,
            prepare: { c in
                prepared.withLock { $0.append(c.name) }
            }
        ) { c in
            if !prepared.withLock({ $0.contains(c.name) }) { reportedUnprepared.withLock { $0.append(c.name) } }
            reported.withLock { $0.append(c.name) }
        }
        let names = ["remote", "s0", "s1", "s2", "s3"]
        #expect(result.map(\.name).sorted() == names)
        #expect(prepared.withLock { $0 }.sorted() == names)
        #expect(reported.withLock { $0 }.sorted() == names)
        #expect(reportedUnprepared.withLock { $0 }.isEmpty)
    }

    /// One after another, a source's deadline still counts from the fan-out's start: one that
    /// waited past it for the source before it is reported `timeout` and not run.
    @Test func sequentialDeadlinesCountFromTheStart() async throws {
        let r = Rendezvous()
        let slow = FederatedSource(
            name: "slow", searchable: SpinningInline(spin: .milliseconds(40), name: "slow", rendezvous: r, waitsForOthers: false),
            query: SearchQuery(text: "q"), timeout: .seconds(30))
        let quick = FederatedSource(
            name: "quick", searchable: SpinningInline(spin: .zero, name: "quick", rendezvous: r, waitsForOthers: false),
            query: SearchQuery(text: "q"), timeout: .milliseconds(10))
        let result = await FanOut.run([slow, quick], inline: .sequential) { _ in }
        try #require(result.map(\.name) == ["slow", "quick"])
        if case .results = result[0].outcome {} else { Issue.record("slow: \(result[0].outcome)") }
        if case .timedOut = result[1].outcome {} else { Issue.record("quick: \(result[1].outcome), expected a timeout") }
        #expect(r.othersStarted.load(ordering: .acquiring) == 1)  // only the slow one ran
    }

    @Test func sequentialRunsInOrderOnTheCallingTask() async {
        let r = Rendezvous()
        let order = Mutex<[String]>([])
        let result = await FanOut.run(sources(3, keptWaits: false, r), inline: .sequential) { c in order.withLock { $0.append(c.name) } }
        #expect(order.withLock { $0 } == ["s0", "s1", "s2"])
        #expect(result.count == 3)
    }
}
