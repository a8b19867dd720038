import FederatedSearchCore
import FederatedSearchEngine
import Foundation

/// The engine on the daemon's demo config (`--demo CONFIG_DIR`): builds every embedded
/// searchable of `CONFIG_DIR/fedsearchd.json` from its NDJSON data with the config's
/// settings, and times a fixed list of realistic queries with default parameters
/// (hitsPerPage 10, default highlighting) per class, printing p50/p99 in microseconds.
///
///     .build/release/fedsearch-bench-engine --demo Configs
///     .build/release/fedsearch-bench-engine --demo Configs --dump /tmp/out.ndjson
///
/// `--dump FILE` writes every query's full response (minus `processingTimeMS`), one per
/// line, instead of timing, so that two builds can be compared for identical results.
/// `DEMO_NO_HIGHLIGHT=1` times with `attributesToHighlight: []`; `DEMO_REPEAT=n` repeats
/// each query n times (default 200); `DEMO_QUERY=movies:amer` times one query only.
enum Demo {
    static let movieQueries: [(String, [String])] = [
        (
            "single",
            [
                "star", "love", "war", "night", "john", "drama", "western", "comedy", "murder", "paramount",
                "horror", "story", "world", "girl", "music",
            ]
        ),
        (
            "two",
            [
                "star wars", "love story", "new york", "john wayne", "silent film", "world war", "romantic comedy",
                "science fiction", "crime drama", "young man",
            ]
        ),
        (
            "prefix",
            [
                "s", "st", "sta", "amer", "a", "am", "ame", "jo", "joh", "dr", "dra", "w", "wa", "wes", "m", "mu",
                "mur", "c", "co", "com", "lo", "lov", "h", "ho", "hor",
            ]
        ),
        ("two+prefix", ["star w", "love s", "john w", "new y", "silent f", "world wa", "crime d"]),
        (
            "typo",
            [
                "stra", "lvoe", "amercan", "detectve", "westrn", "comdy", "murdr", "horor", "starr wars",
                "romantc comedy", "hitchcok", "chaplin",
            ]
        ),
    ]
    static let productQueries: [(String, [String])] = [
        ("single", ["toner", "canon", "cartridge", "black", "lens", "hp", "memory", "cable", "intel", "usb"]),
        ("two", ["toner cartridge", "canon lens", "black ink", "usb cable", "hp laserjet", "intel processor"]),
        ("prefix", ["t", "to", "ton", "c", "ca", "can", "b", "bl", "bla", "me", "mem", "l", "le", "len"]),
        ("typo", ["tonr", "cartrige", "processer", "lexmrk", "magneta", "adaptor"]),
    ]

    static func run(arguments: [String]) throws {
        let dir = arguments[0]
        var dumpPath: String? = nil
        if let i = arguments.firstIndex(of: "--dump"), i + 1 < arguments.count { dumpPath = arguments[i + 1] }
        let env = ProcessInfo.processInfo.environment
        let noHighlight = env["DEMO_NO_HIGHLIGHT"] == "1"
        let repeats = Int(env["DEMO_REPEAT"] ?? "") ?? 200

        let config = try JSONParser.parse(String(contentsOfFile: "\(dir)/fedsearchd.json", encoding: .utf8))
        guard let searchables = config.objectValue?["searchables"]?.objectValue else { fail("no searchables in config") }
        var indices: [(String, EmbeddedIndex)] = []
        for e in searchables.entries {
            guard var o = e.value.objectValue, o["backend"]?.stringValue == "embedded",
                let data = o["data"]?.stringValue
            else { continue }
            for k in ["backend", "data", "timeoutMs"] { o[k] = nil }
            let settings = try IndexSettings.decode(o, path: "searchables.\(e.key)")
            var docs: [JSONObject] = []
            for line in lines("\(dir)/\(data)") {
                guard let d = try JSONParser.parse(line).objectValue else { fail("\(data): not an object") }
                docs.append(d)
            }
            let t0 = nanos()
            let index = try EmbeddedIndex(name: e.key, settings: settings, documents: docs)
            FileHandle.standardError.write(
                Data(
                    "\(e.key): \(docs.count) docs built in \(Double(nanos() - t0) / 1e6) ms\n".utf8))
            indices.append((e.key, index))
        }

        var parameters = SearchParameters()
        parameters.hitsPerPage = 10
        if noHighlight { parameters.attributesToHighlight = [] }

        if let dumpPath {
            var out = ""
            // Default parameters, then the same queries with facets, snippets and ranking info.
            var rich = parameters
            rich.facets = ["*"]
            rich.getRankingInfo = true
            var snippets = parameters
            snippets.attributesToSnippet = ["extract:12", "short_description:6", "title:3"]
            snippets.page = 1
            for (name, index) in indices {
                let classes = name == "movies" ? movieQueries : productQueries
                for (_, queries) in classes {
                    for q in queries {
                        for p in [parameters, rich, snippets] {
                            var r = try index.searchSync(SearchQuery(text: q, parameters: p))
                            r.processingTimeMS = 0
                            out += JSONWriter.string(r.json()) + "\n"
                        }
                    }
                }
            }
            try out.write(toFile: dumpPath, atomically: true, encoding: .utf8)
            return
        }

        var sink = 0
        // DEMO_QUERY=index:text times that one query only (for profiling).
        if let one = env["DEMO_QUERY"], let colon = one.firstIndex(of: ":"),
            let index = indices.first(where: { $0.0 == String(one[..<colon]) })?.1
        {
            let query = SearchQuery(text: String(one[one.index(after: colon)...]), parameters: parameters)
            var lat: [Double] = []
            for _ in 0..<repeats {
                let start = nanos()
                sink &+= try index.searchSync(query).nbHits
                lat.append(Double(nanos() - start) / 1000)
            }
            print("p50 \(percentile(lat, 50)) us, p99 \(percentile(lat, 99)) us (\(sink))")
            return
        }
        var report: [(String, JSONValue)] = [("highlight", .bool(!noHighlight))]
        for (name, index) in indices {
            let classes = name == "movies" ? movieQueries : productQueries
            var perClass: [(String, JSONValue)] = []
            var all: [Double] = []
            var worst: [(Double, String)] = []
            for (cls, queries) in classes {
                var lat: [Double] = []
                for q in queries {
                    let query = SearchQuery(text: q, parameters: parameters)
                    for _ in 0..<5 { _ = try index.searchSync(query) }
                    var mine: [Double] = []
                    for _ in 0..<repeats {
                        let start = nanos()
                        let r = try index.searchSync(query)
                        mine.append(Double(nanos() - start) / 1000)
                        sink &+= r.nbHits
                    }
                    lat += mine
                    worst.append((percentile(mine, 50), q))
                }
                all += lat
                perClass.append(
                    (
                        cls,
                        .object(
                            JSONObject([
                                ("p50_us", .number((percentile(lat, 50) * 10).rounded() / 10)),
                                ("p99_us", .number((percentile(lat, 99) * 10).rounded() / 10)),
                            ]))
                    ))
            }
            perClass.append(
                (
                    "all",
                    .object(
                        JSONObject([
                            ("p50_us", .number((percentile(all, 50) * 10).rounded() / 10)),
                            ("p99_us", .number((percentile(all, 99) * 10).rounded() / 10)),
                        ]))
                ))
            worst.sort { $0.0 > $1.0 }
            perClass.append(
                (
                    "slowest_p50_us",
                    .object(
                        JSONObject(
                            worst.prefix(5).map {
                                ($0.1, .number(($0.0 * 10).rounded() / 10))
                            }))
                ))
            report.append((name, .object(JSONObject(perClass))))
        }
        report.append(("checksum", .number(Double(sink))))
        print(JSONWriter.string(.object(JSONObject(report))))
    }
}
