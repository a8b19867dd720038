/// Synonyms after analysis: for a folded query word, or a run of consecutive query words,
/// the alternatives it also matches, each a list of folded terms (one term, or a phrase).
struct SynonymTable: Sendable {
    private let table: [String: [[String]]]
    /// Inputs of several words (`big cat` → `tiger`), by their terms.
    private let groups: [[String]: [[String]]]
    /// The most words of a multi-word input (0 when there is none).
    let longestGroup: Int

    static let empty = SynonymTable(table: [:], groups: [:])

    private init(table: [String: [[String]]], groups: [[String]: [[String]]]) {
        self.table = table
        self.groups = groups
        longestGroup = groups.keys.map(\.count).max() ?? 0
    }

    init(_ synonyms: [Synonym], analyzer: TextAnalyzer) {
        var table: [String: [[String]]] = [:]
        var groups: [[String]: [[String]]] = [:]
        func terms(_ s: String) -> [String] { analyzer.queryTokens(s).map(\.term) }
        func add(_ from: [String], _ to: [String]) {
            guard !from.isEmpty, !to.isEmpty, from != to else { return }
            if from.count > 1 {
                if !(groups[from]?.contains(to) ?? false) { groups[from, default: []].append(to) }
            } else if !(table[from[0]]?.contains(to) ?? false) {
                table[from[0], default: []].append(to)
            }
        }
        for s in synonyms {
            let outputs = s.synonyms.map(terms)
            if let input = s.input {
                for o in outputs { add(terms(input), o) }
            } else {
                for a in outputs { for b in outputs { add(a, b) } }
            }
        }
        self.init(table: table, groups: groups)
    }

    /// The alternatives of a folded word.
    func alternatives(of term: String) -> [[String]] { table[term] ?? [] }

    /// The alternatives of consecutive folded words (at least two).
    func alternatives(ofGroup terms: [String]) -> [[String]] { groups[terms] ?? [] }

    var isEmpty: Bool { table.isEmpty && groups.isEmpty }
}
