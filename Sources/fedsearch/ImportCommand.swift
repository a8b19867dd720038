#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// `fedsearch import INDEX FILE [--batch N]`: sends an NDJSON file or a JSON array in batches,
/// each acknowledged only once durable, with a progress bar on a terminal (documents,
/// documents/s, ETA) or periodic plain lines otherwise. A refused batch stops the import and
/// says which batch and why; the batches before it are stored.
enum ImportCommand {
    static let usage = "usage: fedsearch import INDEX FILE [--batch N] [--socket PATH]   (FILE: NDJSON or a JSON array)"

    static func run(_ args: ArraySlice<String>, socketPath: String) -> Int32 {
        let parsed: ParsedArguments
        do { parsed = try parseArguments(args, valueOptions: ["batch", "socket"], flags: ["help"]) } catch let e as UsageError {
            fail(e.message, usage: usage)
        } catch { fail("\(error)") }
        if parsed.flags.contains("help") {
            print(usage)
            return 0
        }
        guard parsed.positional.count == 2 else { fail("give INDEX and FILE", usage: usage) }
        let (index, file) = (parsed.positional[0], parsed.positional[1])
        let batchSize: Int
        do { batchSize = try intOption(parsed, "batch", range: 1...WriteDecoder.maxBatch) ?? 1000 } catch let e as UsageError {
            fail(e.message, usage: usage)
        } catch { fail("\(error)") }
        let documents: [JSONValue]
        do { documents = try readDocuments(file) } catch { fail("\(file): \(error)") }
        let progress = Progress(total: documents.count)
        do {
            let connection = try SocketConnection(path: parsed.options["socket"] ?? socketPath, timeoutSeconds: 120)
            var sent = 0
            var batchNumber = 0
            while sent < documents.count {
                let batch = Array(documents[sent..<min(sent + batchSize, documents.count)])
                batchNumber += 1
                let frames = try connection.roundTrip([
                    "id": .string("import-\(batchNumber)"), "op": "addDocuments", "index": .string(index), "documents": .array(batch),
                ])
                if case .error(_, _, let e)? = frames.first {
                    progress.finish()
                    writeToStandardError("fedsearch: batch \(batchNumber) (documents \(sent + 1) to \(sent + batch.count)) was refused: \(e.message) [\(e.code.rawValue)]\n")
                    writeToStandardError("fedsearch: the \(sent) documents before it are stored; fix the file and import from document \(sent + 1)\n")
                    return 1
                }
                sent += batch.count
                progress.update(sent)
            }
            progress.finish()
            print("imported \(sent) documents into \(index) in \(batchNumber) batches")
            return 0
        } catch {
            progress.finish()
            fail("\(error)")
        }
    }

    /// Reads NDJSON (one object per line) or a JSON array; errors name the line.
    static func readDocuments(_ path: String) throws -> [JSONValue] {
        guard let f = fopen(path, "r") else { throw UsageError(message: String(cString: strerror(errno))) }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        if let first = bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }), first == UInt8(ascii: "[") {
            return try JSONParser.parse(bytes).arrayValue ?? []
        }
        var out: [JSONValue] = []
        for (i, line) in bytes.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            guard line.contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 }) else { continue }
            do { out.append(try JSONParser.parse(Array(line))) } catch {
                throw UsageError(message: "line \(i + 1): \(error)")
            }
        }
        return out
    }
}

/// A progress bar on a terminal (documents, rate, ETA), or a plain line every 2 s otherwise.
final class Progress {
    let total: Int
    let start = ContinuousClock.now
    let isTerminal = isatty(2) == 1
    var lastPlain = ContinuousClock.now

    init(total: Int) { self.total = total }

    func update(_ done: Int) {
        let elapsed = seconds(ContinuousClock.now - start)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        let eta = rate > 0 ? Double(total - done) / rate : 0
        let text = "\(done)/\(total) documents, \(Int(rate)) docs/s, ETA \(Int(eta.rounded())) s"
        if isTerminal {
            let width = 30
            let filled = total > 0 ? width * done / total : width
            writeToStandardError("\r[\(String(repeating: "#", count: filled))\(String(repeating: ".", count: width - filled))] \(text)   ")
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
