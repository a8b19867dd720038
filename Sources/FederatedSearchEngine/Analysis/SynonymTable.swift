/// Synonyms after analysis: for a folded query word, or a run of consecutive query words,
/// the alternatives it also matches, each a list of folded terms (one term, or a phrase).
///
/// Built in time linear in the synonyms' words: each input points at the lists it belongs to
/// (a two-way group's members, or a one-way synonym's outputs), and a lookup gathers them,
/// in the synonyms' order, without the input itself and without repeats. A group of n words
/// is not expanded into its n² pairs.
struct SynonymTable: Sendable {
    /// Each synonym's analysed words: a group's members, or a one-way synonym's outputs.
    private let lists: [[[String]]]
    /// Per input (one term, or the terms of several words): the lists it reaches, in order.
    private let reach: [[String]: [Int32]]
    /// The most words of a multi-word input (0 when there is none).
    let longestGroup: Int

    static let empty = SynonymTable(lists: [], reach: [:])

    private init(lists: [[[String]]], reach: [[String]: [Int32]]) {
        self.lists = lists
        self.reach = reach
        longestGroup = reach.keys.lazy.filter { $0.count > 1 }.map(\.count).max() ?? 0
    }

    init(_ synonyms: [Synonym], analyzer: TextAnalyzer) {
        var lists: [[[String]]] = []
        var reach: [[String]: [Int32]] = [:]
        func terms(_ s: String) -> [String] { analyzer.queryTokens(s).map(\.term) }
        for s in synonyms {
            let outputs = s.synonyms.map(terms).filter { !$0.isEmpty }
            guard !outputs.isEmpty else { continue }
            let list = Int32(lists.count)
            lists.append(outputs)
            let inputs = s.input.map { [terms($0)] } ?? outputs
            for input in inputs where !input.isEmpty && reach[input]?.last != list {
                reach[input, default: []].append(list)
            }
        }
        self.init(lists: lists, reach: reach)
    }

    /// The alternatives of a folded word.
    func alternatives(of term: String) -> [[String]] { alternatives(ofInput: [term]) }

    /// The alternatives of consecutive folded words (at least two).
    func alternatives(ofGroup terms: [String]) -> [[String]] { alternatives(ofInput: terms) }

    private func alternatives(ofInput input: [String]) -> [[String]] {
        guard let found = reach[input] else { return [] }
        var out: [[String]] = []
        var seen: Set<[String]> = [input]
        for list in found {
            for alternative in lists[Int(list)] where seen.insert(alternative).inserted { out.append(alternative) }
        }
        return out
    }

    var isEmpty: Bool { reach.isEmpty }
}
