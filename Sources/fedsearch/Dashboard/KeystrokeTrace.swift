import FederatedSearchCore
import Foundation

/// `fedsearch dashboard --trace FILE`: for each keystroke that changes the query, the time
/// from reading the key to the end of the screen refresh that first shows each index's results
/// for that query, one JSON line per index (`{"query":"star w","index":"movies","rank":1,
/// "ms":2.41}`, `rank` 1 for the first index shown). A keystroke overtaken by the next one
/// before an index showed its results records nothing for that index.
@MainActor
final class KeystrokeTrace {
    private let output: FileHandle
    /// When the key being handled was read.
    private var keyRead = ContinuousClock.now
    /// The query of the last keystroke, when its key was read, and the indices not shown yet.
    private var pending: (query: String, keyRead: ContinuousClock.Instant, waiting: [String], shown: Int)?

    init?(path: String) {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            return nil
        }
        output = handle
    }

    /// A key was just read.
    func keyWasRead() { keyRead = .now }

    /// The key changed the query to `query`; `indices` are the columns that will answer it.
    func queryChanged(_ query: String, indices: [String]) {
        pending = (query, keyRead, indices, 0)
    }

    /// A refresh ended, showing in each column the results of `shownQueries[index]`.
    func refreshed(shownQueries: [String: String]) {
        guard var p = pending else { return }
        let ms =
            Double((ContinuousClock.now - p.keyRead).components.attoseconds) / 1e15
            + Double((ContinuousClock.now - p.keyRead).components.seconds) * 1000
        for index in p.waiting where shownQueries[index] == p.query {
            p.shown += 1
            let line: JSONValue = [
                "query": .string(p.query), "index": .string(index), "rank": .number(Double(p.shown)),
                "ms": .number((ms * 1000).rounded() / 1000),
            ]
            output.write(Data((JSONWriter.string(line) + "\n").utf8))
        }
        p.waiting.removeAll { shownQueries[$0] == p.query }
        pending = p.waiting.isEmpty ? nil : p
    }
}
