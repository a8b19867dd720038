// fedsearch-bench-engine: the embedded engine on the shared benchmark corpus, in process.
//
// Implements the contract of ../shared/bench/compare.py: indexes $BENCH_CORPUS/docs.ndjson
// (title searchable, category a facet, price numeric), runs each query file with top-10
// results (documents included, highlighting off), and prints one JSON line with p50/p99 per
// class. Semantics per class: single/two exact words (AND, no prefix, no typos); prefix the
// last word as a prefix; single_typo_d1 one edit allowed on every word; "+facets" also counts
// the category facet over all matches.
//
//     BENCH_CORPUS=/tmp/fedsearch-bench/corpus .build/release/fedsearch-bench-engine
//
// With `--eval DIR` it measures ranking quality on a BEIR-layout collection instead
// (see Evaluation.swift):  .build/release/fedsearch-bench-engine --eval ../shared/datasets/cranfield
// With `--demo CONFIG_DIR` it times realistic queries on the daemon's demo config (see Demo.swift).

import FederatedSearchCore
import FederatedSearchEngine
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fedsearch-bench-engine: \(message)\n".utf8))
    exit(1)
}

func lines(_ path: String) -> [String] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fail("cannot read \(path)") }
    return text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
}

func rssMB() -> Double {
    for line in lines("/proc/self/status") where line.hasPrefix("VmRSS:") {
        let kb = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return kb / 1024
    }
    return 0
}

func percentile(_ xs: [Double], _ p: Double) -> Double {
    let s = xs.sorted()
    guard !s.isEmpty else { return .nan }
    let k = Double(s.count - 1) * p / 100
    let f = Int(k)
    let c = min(f + 1, s.count - 1)
    return s[f] + (s[c] - s[f]) * (k - Double(f))
}

func nanos() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "--eval" {
    do { try Evaluation.run(directory: CommandLine.arguments[2]) } catch { fail("\(error)") }
    exit(0)
}
if CommandLine.arguments.count >= 3 && CommandLine.arguments[1] == "--demo" {
    do { try Demo.run(arguments: Array(CommandLine.arguments.dropFirst(2))) } catch { fail("\(error)") }
    exit(0)
}

let corpus = ProcessInfo.processInfo.environment["BENCH_CORPUS"] ?? "/tmp/fedsearch-bench/corpus"
var documents: [JSONObject] = []
for (i, line) in lines("\(corpus)/docs.ndjson").enumerated() {
    guard let v = try? JSONParser.parse(line), let o = v.objectValue else { fail("docs.ndjson line \(i + 1) is not an object") }
    documents.append(o)
}

var settings = IndexSettings()
settings.searchableAttributes = [SearchableAttribute(name: "title", priority: 0)]
settings.attributesForFaceting = [FacetingAttribute(name: "category"), FacetingAttribute(name: "price", mode: .filterOnly)]

/// `--incremental N`: the index built by updates of N documents each, merged as the
/// daemon's writer merges them (each planned merge completed before the next update), so the
/// queries meet the segments such a history leaves (with `--settled`, as they are once the
/// writes have stopped).
let incrementalBatch: Int? = CommandLine.arguments.firstIndex(of: "--incremental").flatMap {
    $0 + 1 < CommandLine.arguments.count ? Int(CommandLine.arguments[$0 + 1]) : nil
}

let rss0 = rssMB()
let t0 = nanos()
var index: EmbeddedIndex
do {
    if let batch = incrementalBatch {
        index = try EmbeddedIndex(name: "bench", settings: settings, documents: [], positions: [])
        var start = 0
        while start < documents.count {
            let end = min(start + batch, documents.count)
            index = try index.updated(adding: (start..<end).map { (Int64($0), documents[$0]) }, deleting: [])
            while let merge = index.plannedMerge(.small) ?? index.plannedMerge(.base) {
                index = index.completing(try index.build(merge))
            }
            start = end
        }
        // `--settled`: then the fold a durable index makes once its writes have stopped.
        if CommandLine.arguments.contains("--settled") {
            while let merge = index.plannedMerge(.base, settling: true) { index = index.completing(try index.build(merge)) }
        }
    } else {
        index = try EmbeddedIndex(name: "bench", settings: settings, documents: documents)
    }
    // `--replace N`: then N single-document updates that replace existing documents (each a
    // deletion in the segment holding the old version, and a segment of one), as a durable
    // index taking upserts has between merges.
    if let i = CommandLine.arguments.firstIndex(of: "--replace"), i + 1 < CommandLine.arguments.count,
        let n = Int(CommandLine.arguments[i + 1])
    {
        for k in 0..<n {
            let d = (k &* 7919) % documents.count
            index = try index.updated(adding: [(Int64(d), documents[d])], deleting: [])
            while let merge = index.plannedMerge(.small) { index = index.completing(try index.build(merge)) }
        }
    }
} catch { fail("\(error)") }
let buildSeconds = Double(nanos() - t0) / 1e9
let rss1 = rssMB()

// BENCH_DEFAULTS=1 runs every class with the defaults a search gets over the socket or HTTP
// (prefix on the last word, typos, highlighting), 10 hits a page: the engine's share of what
// the daemon does per query in `fedsearch-bench --http`. compare.py never sets it.
let useDefaults = ProcessInfo.processInfo.environment["BENCH_DEFAULTS"] == "1"

func parameters(prefix: Bool, typos: Bool, facets: Bool) -> SearchParameters {
    var p = SearchParameters()
    if useDefaults {
        p.hitsPerPage = 10
        return p
    }
    p.hitsPerPage = 10
    p.attributesToHighlight = []
    p.queryType = prefix ? .prefixLast : .prefixNone
    p.typoTolerance = typos
    p.typoToleranceMode = typos ? .enabled : .disabled
    if typos {
        p.minWordSizefor1Typo = 1
        p.minWordSizefor2Typos = 100
    }
    if facets {
        p.facets = ["category"]
        p.maxValuesPerFacet = 50
    }
    return p
}

var checksum = 0
@MainActor func time(_ queries: [String], _ p: SearchParameters) -> [Double] {
    for q in queries.prefix(50) { checksum &+= (try? index.searchSync(SearchQuery(text: q, parameters: p)))?.nbHits ?? 0 }
    var out: [Double] = []
    out.reserveCapacity(queries.count)
    for q in queries {
        let start = nanos()
        let r = try? index.searchSync(SearchQuery(text: q, parameters: p))
        out.append(Double(nanos() - start) / 1000)
        checksum &+= r?.hits.count ?? 0
    }
    return out
}

let single = lines("\(corpus)/q_single.txt")
let two = lines("\(corpus)/q_two.txt")
let prefix = lines("\(corpus)/q_prefix.txt")
let typo = lines("\(corpus)/q_typo.txt")
var result: [(String, JSONValue)] = [
    (
        "engine",
        .string(
            index.segmentCount > 1 || incrementalBatch != nil
                ? "fedsearch-embedded (\(index.segmentCount) segments)" : "fedsearch-embedded")
    ),
    ("n_docs", .number(Double(documents.count))),
    ("build_s", .number((buildSeconds * 1000).rounded() / 1000)), ("index_rss_mb", .number(((rss1 - rss0) * 10).rounded() / 10)),
]
let exact = parameters(prefix: false, typos: false, facets: false)
var hitsTwo = 0
for q in two { hitsTwo += (try? index.searchSync(SearchQuery(text: q, parameters: exact)))?.nbHits ?? 0 }
result.append(("mean_hits_two", .number(Double(hitsTwo) / Double(max(two.count, 1)))))
let classes: [(String, [String], SearchParameters)] = [
    ("single", single, exact), ("two", two, exact), ("prefix", prefix, parameters(prefix: true, typos: false, facets: false)),
    ("single+facets", single, parameters(prefix: false, typos: false, facets: true)),
    ("two+facets", two, parameters(prefix: false, typos: false, facets: true)),
    ("prefix+facets", prefix, parameters(prefix: true, typos: false, facets: true)),
    ("single_typo_d1", typo, parameters(prefix: false, typos: true, facets: false)),
]
// BENCH_ONLY=prefix,two runs only those classes (for profiling); BENCH_REPEAT=n repeats each.
let only = ProcessInfo.processInfo.environment["BENCH_ONLY"].map { Set($0.split(separator: ",").map(String.init)) }
let repeats = Int(ProcessInfo.processInfo.environment["BENCH_REPEAT"] ?? "") ?? 1
// BENCH_DUMP=prefix prints that class's nbHits, microseconds and query, one query a line, instead.
if let dump = ProcessInfo.processInfo.environment["BENCH_DUMP"], let c = classes.first(where: { $0.0 == dump }) {
    for q in c.1 {
        let start = nanos()
        let n = (try? index.searchSync(SearchQuery(text: q, parameters: c.2)))?.nbHits ?? -1
        print("\(n)\t\(Double(nanos() - start) / 1000)\t\(q)")
    }
    exit(0)
}
for (name, queries, p) in classes where only?.contains(name) ?? true {
    for _ in 1..<max(repeats, 1) { _ = time(queries, p) }
    let lat = time(queries, p)
    result.append(
        (
            name,
            .object(
                JSONObject([
                    ("p50_us", .number((percentile(lat, 50) * 10).rounded() / 10)),
                    ("p99_us", .number((percentile(lat, 99) * 10).rounded() / 10)),
                    ("mean_us", .number((lat.reduce(0, +) / Double(max(lat.count, 1)) * 10).rounded() / 10)),
                    ("n", .number(Double(lat.count))),
                ]))
        ))
}
result.append(("checksum", .number(Double(checksum))))
print(JSONWriter.string(.object(JSONObject(result))))
