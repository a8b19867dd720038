import Foundation
import InstantSearch
#if canImport(Glibc)
import Glibc
#endif

/// A search box replaced by one of your own: it implements ``SearchBoxController`` and takes
/// its queries from a stream of lines (a pipe, a file, a FIFO), each line submitted as a query.
/// Nothing in the library knows it is not a box the user types into.
@MainActor
public final class PipeSearchBoxController: SearchBoxController {
    public var onQueryChanged: ((String?) -> Void)?
    public var onQuerySubmitted: ((String?) -> Void)?
    /// The last query read.
    public private(set) var query: String?

    public init() {}

    /// The interactor's query changed elsewhere: a pipe shows nothing.
    public func setQuery(_ query: String?) { self.query = query }

    /// Reads `lines` to their end, each as a typed and submitted query; after each,
    /// `answered` is awaited (the program's way of waiting for that query's results).
    public func run(_ lines: AsyncStream<String>, answered: () async -> Void = {}) async {
        for await line in lines {
            query = line
            onQueryChanged?(line)
            onQuerySubmitted?(line)
            await answered()
        }
    }

    /// The lines of standard input, read on a thread of their own.
    public nonisolated static func standardInputLines() -> AsyncStream<String> {
        AsyncStream { continuation in
            let thread = Thread {
                while let line = readLine(strippingNewline: true) { continuation.yield(line) }
                continuation.finish()
            }
            thread.start()
        }
    }
}
