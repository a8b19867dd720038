import FederatedSearchCore

/// Precomputed rank of every document under sort criteria (`customRanking`, `asc(price)`):
/// ranking compares one integer per document instead of reading JSON. Equal values share an
/// ordinal; documents without a value come last.
enum SortOrdinals {
    /// Dense ordinals (0 = best) of each document under `criteria`.
    static func compute(documents: [JSONObject], criteria: [CustomRankingCriterion]) -> [UInt32] {
        table(documents: documents, criteria: criteria).ordinals
    }

    /// Each document's ordinal, and each ordinal's sort key: one value per criterion
    /// (negated when descending, +infinity when missing), so that ordinals of different
    /// segments compare through their values.
    static func table(documents: [JSONObject], criteria: [CustomRankingCriterion]) -> (ordinals: [UInt32], values: [Double]) {
        guard !criteria.isEmpty else { return ([UInt32](repeating: 0, count: documents.count), []) }
        let (order, less, keys) = sorted(documents: documents, criteria: criteria)
        var ordinals = [UInt32](repeating: 0, count: documents.count)
        var values: [Double] = []
        var rank: UInt32 = 0
        let n = criteria.count
        for (i, d) in order.enumerated() {
            if i > 0 && less(order[i - 1], d) { rank += 1 }
            if i == 0 || rank != ordinals[order[i - 1]] { values.append(contentsOf: keys[d * n..<(d + 1) * n]) }
            ordinals[d] = rank
        }
        return (ordinals, values)
    }

    /// The documents' positions ordered by `criteria`, equal ones in their given order.
    static func order(documents: [JSONObject], criteria: [CustomRankingCriterion]) -> [Int] {
        sorted(documents: documents, criteria: criteria).order
    }

    /// The order, and the comparison it sorted by (positions in `documents`).
    private static func sorted(
        documents: [JSONObject], criteria: [CustomRankingCriterion]
    ) -> (order: [Int], less: (Int, Int) -> Bool, keys: [Double]) {
        let paths = criteria.map { AttributePath($0.attribute) }
        // One key per document and criterion: the value, negated for descending; missing = +inf.
        var keys = [Double](repeating: .infinity, count: documents.count * criteria.count)
        for (d, doc) in documents.enumerated() {
            for (c, path) in paths.enumerated() {
                guard let leaf = path.leaves(in: doc).first else { continue }
                let v: Double?
                switch leaf {
                case .number(let n): v = n
                case .bool(let b): v = b ? 1 : 0
                default: v = nil
                }
                if let v { keys[d * criteria.count + c] = criteria[c].ascending ? v : -v }
            }
        }
        let n = criteria.count
        func less(_ a: Int, _ b: Int) -> Bool {
            for c in 0..<n {
                let x = keys[a * n + c]
                let y = keys[b * n + c]
                if x != y { return x < y }
            }
            return false
        }
        let order = (0..<documents.count).sorted { less($0, $1) || (!less($1, $0) && $0 < $1) }
        return (order, less, keys)
    }
}
