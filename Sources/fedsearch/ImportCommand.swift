#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// `fedsearch import INDEX FILE [--batch N]`: sends an NDJSON file or a JSON array in batches,
/// each acknowledged only once durable, with a progress bar on a terminal (documents,
/// documents/s, ETA) or periodic plain lines otherwise. A refused batch stops the import and
/// says which batch and why and where to resume; the batches before it are stored.
enum ImportCommand {
    static let usage = """
        usage: fedsearch import INDEX FILE [--batch N] [--in-flight N] [--max-bytes N] [--socket PATH]
          FILE           NDJSON (one document a line) or a JSON array of documents
          --batch N      documents per batch (default 1000); each batch is atomic
          --max-bytes N  the most bytes a batch line may have: the daemon's maxLineBytes
                         (default 1 MiB, the daemon's default); bigger batches are split
          --in-flight N  batches sent ahead of their answers (default 128, and at most 64 MiB unanswered;
                         1 waits for each)
        """

    static func run(_ args: ArraySlice<String>, socketPath: String) async -> Int32 {
        let parsed = parseCommand(args, valueOptions: ["batch", "in-flight", "max-bytes", "socket"], usage: usage)
        guard parsed.positional.count == 2 else { fail("give INDEX and FILE", usage: usage) }
        let (index, file) = (parsed.positional[0], parsed.positional[1])
        let batchSize: Int
        do { batchSize = try intOption(parsed, "batch", range: 1...WriteDecoder.maxBatch) ?? 1000 } catch let e as UsageError {
            fail(e.message, usage: usage)
        } catch { fail("\(error)") }
        let inFlight: Int
        do { inFlight = try intOption(parsed, "in-flight", range: 1...256) ?? 128 } catch let e as UsageError {
            fail(e.message, usage: usage)
        } catch { fail("\(error)") }
        let maxBytes: Int
        do { maxBytes = try intOption(parsed, "max-bytes", range: 1024...(64 << 20)) ?? (1 << 20) } catch let e as UsageError {
            fail(e.message, usage: usage)
        } catch { fail("\(error)") }
        let documents: DocumentSource
        do { documents = try DocumentSource(path: file) } catch { fail("\(file): \(error)") }
        let progress = Progress(total: documents.total)
        do {
            let connection = DaemonConnection(path: parsed.options["socket"] ?? socketPath)
            defer { connection.close() }
            let outcome = try await send(
                documents, to: index, over: connection, batchSize: batchSize, inFlight: inFlight, maxLineBytes: maxBytes,
                progress: progress)
            progress.finish()
            // A refused batch comes before any bad line read after it: report it first, as
            // the place to resume from.
            if outcome.firstFailure == nil, let bad = outcome.badLine {
                writeToStandardError("fedsearch: \(file): line \(bad.line) is not valid JSON: \(bad.message)\n")
                writeToStandardError(
                    "fedsearch: every document before it is stored (\(outcome.stored) in all); fix the line and import again from it (re-sending a stored document replaces it with itself)\n"
                )
                return 1
            }
            if let bad = outcome.badLine {
                writeToStandardError("fedsearch: \(file): line \(bad.line) is not valid JSON either: \(bad.message)\n")
            }
            if let failure = outcome.firstFailure, let partial = outcome.partial {
                // Written in part: the refused documents by their number in the file.
                let numbers = partial.positions.map { String(failure.first + $0 + 1) }
                let more = partial.count > numbers.count ? " and \(partial.count - numbers.count) more" : ""
                writeToStandardError(
                    "fedsearch: batch \(failure.number) (documents \(failure.first + 1) to \(failure.first + failure.count)): document\(partial.count == 1 ? "" : "s") \(numbers.joined(separator: ", "))\(more) refused, the batch's other \(failure.count - partial.count) stored: \(failure.error.message) [\(failure.error.code.rawValue)]\n"
                )
                writeToStandardError(
                    "fedsearch: \(outcome.stored) documents stored in all; fix the file and import again from document \(failure.first + (partial.positions.min() ?? 0) + 1) (re-sending a stored document replaces it with itself)\n"
                )
                return 1
            }
            if let failure = outcome.firstFailure {
                let stored = outcome.stored
                writeToStandardError(
                    "fedsearch: batch \(failure.number) (documents \(failure.first + 1) to \(failure.first + failure.count)) was refused: \(failure.error.message) [\(failure.error.code.rawValue)]\n"
                )
                writeToStandardError(
                    "fedsearch: every batch before it is stored (\(stored) documents stored in all); fix the file and import again from document \(failure.first + 1) (re-sending a stored document replaces it with itself)\n"
                )
                return 1
            }
            print("imported \(outcome.stored) documents into \(index) in \(outcome.batches) batches")
            return 0
        } catch {
            progress.finish()
            fail("\(error)")
        }
    }

    /// A batch sent and not yet answered.
    struct Batch {
        let number: Int
        let first: Int
        let count: Int
        let bytes: Int
    }

    /// The most request bytes left unanswered, whatever `--in-flight` says.
    static let maxUnansweredBytes = 64 << 20

    struct Outcome {
        var stored = 0
        var batches = 0
        var firstFailure: (number: Int, first: Int, count: Int, error: SearchError)?
        /// When the first failure's batch was written in part (a backend whose import is not
        /// atomic, as Typesense's): the refused documents' positions in it, and how many.
        var partial: (positions: [Int], count: Int)?
        /// A line of the file that is not JSON: nothing from it on was sent.
        var badLine: DocumentSource.BadLine?
    }

    /// Sends the documents in batches, keeping up to `inFlight` batches unanswered so the
    /// daemon can commit and reindex several in one go; after a refusal it sends no more
    /// batches and waits for those in flight. Batches are typed `addDocuments` requests on
    /// the client library's connection, answered in the order they were sent.
    static func send(
        _ documents: DocumentSource, to index: String, over connection: DaemonConnection, batchSize: Int, inFlight depth: Int,
        maxLineBytes: Int, progress: Progress
    ) async throws -> Outcome {
        var outcome = Outcome()
        var pending: [(batch: Batch, answer: Response)] = []
        var unanswered = 0
        var next = 0
        // The request line around no documents, with the longest id the connection gives.
        let overhead = Request(
            id: "c\(Int.max)", operation: .index(index, .documents(op: "addDocuments", []))
        ).line().count
        // A document read but not yet sent (it did not fit in the previous batch), with its size.
        var carried: (document: JSONValue, bytes: Int)?
        var exhausted = false
        func take() throws -> (document: JSONValue, bytes: Int)? {
            if let c = carried {
                carried = nil
                return c
            }
            guard !exhausted else { return nil }
            do {
                guard let d = try documents.next() else {
                    exhausted = true
                    return nil
                }
                return (d, JSONWriter.bytes(d).count)
            } catch let bad as DocumentSource.BadLine {
                exhausted = true
                outcome.badLine = bad
                return nil
            }
        }
        while true {
            while outcome.firstFailure == nil, pending.count < depth, unanswered < maxUnansweredBytes {
                var changes: [DocumentChange] = []
                var bytes = overhead
                // Up to batchSize documents, and never a line over the daemon's limit; a
                // document alone over it, or one that is not an object, is reported, and
                // nothing more is sent.
                while changes.count < batchSize, let (doc, size) = try take() {
                    let refusal: String?
                    if bytes + size + 1 > maxLineBytes {
                        refusal =
                            "document \(next + changes.count + 1) is \(size) bytes; a request line holds at most \(maxLineBytes) (--max-bytes, the daemon's maxLineBytes)"
                    } else if doc.objectValue == nil {
                        refusal = "document \(next + changes.count + 1) is \(doc.typeName), not an object"
                    } else {
                        refusal = nil
                    }
                    if let refusal {
                        if !changes.isEmpty {
                            carried = (doc, size)
                            break
                        }
                        outcome.firstFailure = (outcome.batches + 1, next, 1, SearchError(.invalidDocument, refusal))
                        break
                    }
                    changes.append(.upsert(doc.objectValue!))
                    bytes += size + 1
                }
                if changes.isEmpty { break }
                let answer = try connection.send(.index(index, .documents(op: "addDocuments", changes)))
                outcome.batches += 1
                pending.append((Batch(number: outcome.batches, first: next, count: changes.count, bytes: bytes), answer))
                unanswered += bytes
                next += changes.count
            }
            if pending.isEmpty { return outcome }
            let (batch, answer) = pending.removeFirst()
            unanswered -= batch.bytes
            do {
                try await read(answer, of: batch, into: &outcome, progress: progress)
            } catch {
                // Batches are answered in order: every one before this is stored.
                throw UsageError(
                    message:
                        "\(error)\nfedsearch: \(pending.count + 1) batches were unanswered; every batch before document \(batch.first + 1) is stored (\(outcome.stored) documents); import again from document \(batch.first + 1) (re-sending a stored document replaces it with itself)"
                )
            }
        }
    }

    /// Reads one batch's answer: stored, or the first refusal.
    private static func read(_ answer: Response, of batch: Batch, into outcome: inout Outcome, progress: Progress) async throws {
        for try await frame in answer {
            switch frame {
            case .info(_, "written", _):
                outcome.stored += batch.count
                progress.update(outcome.stored)
            case .error(_, _, let e):
                let partial = refusedInPart(e)
                // The batch's other documents were stored.
                if let partial { outcome.stored += batch.count - partial.count }
                if outcome.firstFailure == nil || batch.number < outcome.firstFailure!.number {
                    outcome.firstFailure = (batch.number, batch.first, batch.count, e)
                    outcome.partial = partial
                }
            default:
                continue
            }
        }
    }

    /// The documents refused by a backend that wrote the batch's others (the error says
    /// "the batch's other documents were written" and names each refused one `documents[i]`,
    /// the first five, then "and N more"): their positions, and how many in all. Nil: the batch
    /// was refused whole.
    static func refusedInPart(_ e: SearchError) -> (positions: [Int], count: Int)? {
        guard e.message.contains("the batch's other documents were written") else { return nil }
        var positions: [Int] = []
        var rest = Substring(e.message)
        while let open = rest.range(of: "documents[") {
            rest = rest[open.upperBound...]
            guard let close = rest.firstIndex(of: "]"), let n = Int(rest[..<close]) else { continue }
            positions.append(n)
            rest = rest[close...]
        }
        var more = 0
        if let and = e.message.range(of: "; and ", options: .backwards) {
            more = Int(e.message[and.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        return positions.isEmpty ? nil : (positions, positions.count + more)
    }

    /// A whole file's bytes.
    static func readFile(_ path: String) throws -> [UInt8] {
        guard let f = fopen(path, "r") else { throw UsageError(message: Errno.current.description) }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        return bytes
    }
}

/// A progress bar on a terminal (documents, rate, ETA), or a plain line every 2 s otherwise;
/// without a known total (a pipe), documents and rate only.
final class Progress {
    let total: Int?
    let start = ContinuousClock.now
    let isTerminal = isatty(2) == 1
    var lastPlain = ContinuousClock.now
    /// The recent rate, from the first acknowledgment on (see ``ThroughputMeter``).
    var meter = ThroughputMeter()

    init(total: Int?) { self.total = total }

    func update(_ done: Int) {
        let elapsed = seconds(ContinuousClock.now - start)
        meter.record(done: done, at: elapsed)
        let rateText = meter.rate.map { "\(Int($0)) docs/s" } ?? "measuring rate"
        let text: String
        var bar = ""
        if let total {
            let eta = done >= total ? "done" : meter.secondsLeft(total: total).map { "ETA \(Int($0.rounded())) s" } ?? "ETA …"
            text = "\(done)/\(total) documents, \(rateText), \(eta)"
            let width = 30
            let filled = total > 0 ? min(width, max(0, width * done / total)) : width
            bar = "[\(String(repeating: "#", count: filled))\(String(repeating: ".", count: width - filled))] "
        } else {
            text = "\(done) documents, \(rateText)"
        }
        if isTerminal {
            writeToStandardError("\r\(bar)\(text)   ")
        } else if seconds(ContinuousClock.now - lastPlain) >= 2 || done == total {
            lastPlain = ContinuousClock.now
            writeToStandardError("import: \(text)\n")
        }
    }

    func finish() { if isTerminal { writeToStandardError("\n") } }

    private func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }
}
