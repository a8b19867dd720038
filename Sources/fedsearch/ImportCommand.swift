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

    static func run(_ args: ArraySlice<String>, socketPath: String) -> Int32 {
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
            let connection = try SocketConnection(path: parsed.options["socket"] ?? socketPath, timeoutSeconds: 300)
            let outcome = try send(documents, to: index, over: connection, batchSize: batchSize, inFlight: inFlight, maxLineBytes: maxBytes, progress: progress)
            progress.finish()
            // A refused batch comes before any bad line read after it: report it first, as
            // the place to resume from.
            if outcome.firstFailure == nil, let bad = outcome.badLine {
                writeToStandardError("fedsearch: \(file): line \(bad.line) is not valid JSON: \(bad.message)\n")
                writeToStandardError("fedsearch: every document before it is stored (\(outcome.stored) in all); fix the line and import again from it (re-sending a stored document replaces it with itself)\n")
                return 1
            }
            if let bad = outcome.badLine {
                writeToStandardError("fedsearch: \(file): line \(bad.line) is not valid JSON either: \(bad.message)\n")
            }
            if let failure = outcome.firstFailure {
                let stored = outcome.stored
                writeToStandardError("fedsearch: batch \(failure.number) (documents \(failure.first + 1) to \(failure.first + failure.count)) was refused: \(failure.error.message) [\(failure.error.code.rawValue)]\n")
                writeToStandardError("fedsearch: every batch before it is stored (\(stored) documents stored in all); fix the file and import again from document \(failure.first + 1) (re-sending a stored document replaces it with itself)\n")
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
        /// A line of the file that is not JSON: nothing from it on was sent.
        var badLine: DocumentSource.BadLine?
    }

    /// Sends the documents in batches, keeping up to `inFlight` batches unanswered so the
    /// daemon can commit and reindex several in one go; after a refusal it sends no more
    /// batches and waits for those in flight.
    static func send(
        _ documents: DocumentSource, to index: String, over connection: SocketConnection, batchSize: Int, inFlight depth: Int,
        maxLineBytes: Int, progress: Progress
    ) throws -> Outcome {
        var outcome = Outcome()
        var pending: [String: Batch] = [:]
        var unanswered = 0
        var next = 0
        // A document read but not yet sent (it did not fit in the previous batch).
        var carried: [UInt8]? = nil
        var exhausted = false
        func take() throws -> [UInt8]? {
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
                return encoded(d)
            } catch let bad as DocumentSource.BadLine {
                exhausted = true
                outcome.badLine = bad
                return nil
            }
        }
        while true {
            while outcome.firstFailure == nil, pending.count < depth, unanswered < maxUnansweredBytes {
                let id = "import-\(outcome.batches + 1)"
                var line = Array(#"{"op":"addDocuments","id":"#.utf8) + JSONWriter.bytes(.string(id))
                line += Array(#","index":"#.utf8) + JSONWriter.bytes(.string(index)) + Array(#","documents":["#.utf8)
                var count = 0
                // Up to batchSize documents, and never a line over the daemon's limit (a
                // document alone over it is reported, and nothing more is sent).
                while count < batchSize, let doc = try take() {
                    if line.count + doc.count + 3 > maxLineBytes {
                        if count > 0 {
                            carried = doc
                            break
                        }
                        // Alone over the line limit: the daemon would close the connection.
                        outcome.firstFailure = (outcome.batches + 1, next, 1, SearchError(
                            .invalidDocument, "document \(next + 1) is \(doc.count) bytes; a request line holds at most \(maxLineBytes) (--max-bytes, the daemon's maxLineBytes)"))
                        break
                    }
                    if count > 0 { line.append(UInt8(ascii: ",")) }
                    line += doc
                    count += 1
                }
                if count == 0 { break }
                line += Array("]}\n".utf8)
                try connection.sendRaw(line)
                outcome.batches += 1
                pending[id] = Batch(number: outcome.batches, first: next, count: count, bytes: line.count)
                unanswered += line.count
                next += count
            }
            if pending.isEmpty { return outcome }
            guard let frame = try connection.readFrame() else {
                throw UsageError(message: "the daemon closed the connection with \(pending.count) batches unanswered")
            }
            switch frame {
            case .info(let id?, "written", _):
                guard let batch = pending.removeValue(forKey: id) else { continue }
                unanswered -= batch.bytes
                outcome.stored += batch.count
                progress.update(outcome.stored)
            case .error(let id?, _, let e):
                guard let batch = pending.removeValue(forKey: id) else { continue }
                unanswered -= batch.bytes
                if outcome.firstFailure == nil || batch.number < outcome.firstFailure!.number {
                    outcome.firstFailure = (batch.number, batch.first, batch.count, e)
                }
            case .error(nil, _, let e):
                throw UsageError(message: "\(e.message) [\(e.code.rawValue)]")
            default:
                continue
            }
        }
    }

    /// A document as JSON text (a whole `JSONValue` encodes the same way inside an array).
    static func encoded(_ document: JSONValue) -> [UInt8] { JSONWriter.bytes(document) }

    /// A whole file's bytes.
    static func readFile(_ path: String) throws -> [UInt8] {
        guard let f = fopen(path, "r") else { throw UsageError(message: String(cString: strerror(errno))) }
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

    init(total: Int?) { self.total = total }

    func update(_ done: Int) {
        let elapsed = seconds(ContinuousClock.now - start)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let text: String
        var bar = ""
        if let total {
            let eta = rate > 0 ? Double(max(0, total - done)) / rate : 0
            text = "\(done)/\(total) documents, \(Int(rate)) docs/s, ETA \(Int(eta.rounded())) s"
            let width = 30
            let filled = total > 0 ? min(width, max(0, width * done / total)) : width
            bar = "[\(String(repeating: "#", count: filled))\(String(repeating: ".", count: width - filled))] "
        } else {
            text = "\(done) documents, \(Int(rate)) docs/s"
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
