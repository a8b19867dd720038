/// Synonyms after analysis: for a folded query word, the alternatives it also matches, each
/// a list of folded terms (one term, or a phrase). Only single-word inputs are looked up.
struct SynonymTable: Sendable {
    private let table: [String: [[String]]]

    static let empty = SynonymTable(table: [:])

    private init(table: [String: [[String]]]) { self.table = table }

    init(_ synonyms: [Synonym], analyzer: TextAnalyzer) {
        var table: [String: [[String]]] = [:]
        func terms(_ s: String) -> [String] { analyzer.queryTokens(s).map(\.term) }
        func add(_ from: [String], _ to: [String]) {
            guard from.count == 1, !to.isEmpty, from != to else { return }
            if !(table[from[0]]?.contains(to) ?? false) { table[from[0], default: []].append(to) }
        }
        for s in synonyms {
            let outputs = s.synonyms.map(terms)
            if let input = s.input {
                for o in outputs { add(terms(input), o) }
            } else {
                for a in outputs { for b in outputs { add(a, b) } }
            }
        }
        self.table = table
    }

    /// The alternatives of a folded word.
    func alternatives(of term: String) -> [[String]] { table[term] ?? [] }

    var isEmpty: Bool { table.isEmpty }
}
