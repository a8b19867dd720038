import FederatedSearchCore
import FederatedSearchEngine
import Foundation

/// Relevance evaluation on a BEIR-layout collection (corpus.jsonl, queries.jsonl,
/// qrels/test.tsv): indexes title and text with the English stemmer and stop words, runs
/// every query in OR mode ranked by BM25, and prints nDCG@10 (graded gains), MAP@100 and
/// Recall@100 (relevance > 0) as one JSON line.
enum Evaluation {
    static func run(directory: String) throws {
        var documents: [JSONObject] = []
        for line in lines("\(directory)/corpus.jsonl") {
            guard let o = try JSONParser.parse(line).objectValue, let id = o["_id"]?.stringValue else { continue }
            documents.append(
                JSONObject([
                    ("objectID", .string(id)), ("title", o["title"] ?? ""), ("text", o["text"] ?? ""),
                ]))
        }
        var judgements: [String: [String: Double]] = [:]
        for (i, line) in lines("\(directory)/qrels/test.tsv").enumerated() where i > 0 {
            let f = line.split(separator: "\t").map(String.init)
            guard f.count >= 3, let g = Double(f[2]) else { continue }
            judgements[f[0], default: [:]][f[1]] = g
        }
        let settings = try IndexSettings.decode(
            json(
                """
                {"searchableAttributes": ["title", "text"], "queryLanguages": ["en"], "removeStopWords": true, "ranking": ["bm25"]}
                """), path: "eval")
        let index = try EmbeddedIndex(name: "eval", settings: settings, documents: documents)
        var parameters = SearchParameters()
        parameters.matchingStrategy = .any
        parameters.hitsPerPage = 100
        parameters.attributesToHighlight = []
        parameters.queryType = .prefixNone
        parameters.typoTolerance = false
        parameters.typoToleranceMode = .disabled

        var ndcg = 0.0
        var map = 0.0
        var recall = 0.0
        var n = 0
        for line in lines("\(directory)/queries.jsonl") {
            guard let o = try JSONParser.parse(line).objectValue, let id = o["_id"]?.stringValue,
                let text = o["text"]?.stringValue, let relevant = judgements[id], relevant.values.contains(where: { $0 > 0 })
            else { continue }
            let ranked = try index.searchSync(SearchQuery(text: text, parameters: parameters)).hits.map(\.objectID)
            ndcg += nDCG(ranked, relevant, k: 10)
            map += averagePrecision(ranked, relevant, k: 100)
            let found = ranked.prefix(100).filter { (relevant[$0] ?? 0) > 0 }.count
            recall += Double(found) / Double(relevant.values.filter { $0 > 0 }.count)
            n += 1
        }
        let d = Double(max(n, 1))
        print(
            JSONWriter.string(
                .object(
                    JSONObject([
                        ("collection", .string(directory)), ("queries", .number(Double(n))),
                        ("ndcg@10", .number((ndcg / d * 10000).rounded() / 10000)),
                        ("map@100", .number((map / d * 10000).rounded() / 10000)),
                        ("recall@100", .number((recall / d * 10000).rounded() / 10000)),
                    ]))))
    }

    static func json(_ text: String) throws -> JSONObject {
        guard let o = try JSONParser.parse(text).objectValue else { fatalError("settings must be an object") }
        return o
    }

    /// nDCG with linear gains and log2 discounts.
    static func nDCG(_ ranked: [String], _ relevant: [String: Double], k: Int) -> Double {
        func dcg(_ gains: [Double]) -> Double {
            gains.prefix(k).enumerated().reduce(0) { $0 + $1.element / log2(Double($1.offset) + 2) }
        }
        let ideal = dcg(relevant.values.filter { $0 > 0 }.sorted(by: >))
        return ideal > 0 ? dcg(ranked.map { max(0, relevant[$0] ?? 0) }) / ideal : 0
    }

    static func averagePrecision(_ ranked: [String], _ relevant: [String: Double], k: Int) -> Double {
        let total = relevant.values.filter { $0 > 0 }.count
        var hits = 0
        var sum = 0.0
        for (i, id) in ranked.prefix(k).enumerated() where (relevant[id] ?? 0) > 0 {
            hits += 1
            sum += Double(hits) / Double(i + 1)
        }
        return total > 0 ? sum / Double(total) : 0
    }
}
