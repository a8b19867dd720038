import FederatedSearchCore

/// The numbers of one attribute with the documents holding them, sorted by number (equal
/// numbers by document): what a numeric filter reads, by bisection, without reading documents.
struct SortedNumbers: Sendable {
    let numbers: [Double]
    let documents: [UInt32]

    /// Pairs already sorted (a saved segment's).
    init(sortedNumbers: [Double], documents: [UInt32]) {
        numbers = sortedNumbers
        self.documents = documents
    }

    /// `numbers[i]` belongs to `documents[i]`; both are sorted here.
    init(numbers: [Double], documents: [UInt32]) {
        var pairs = numbers.indices.map { NumberEntry(number: numbers[$0], document: documents[$0]) }
        pairs.sort { $0.number < $1.number || ($0.number == $1.number && $0.document < $1.document) }
        self.numbers = pairs.map(\.number)
        self.documents = pairs.map(\.document)
    }

    /// Every numeric leaf at `path` in `docs` (arrays flattened), with its document.
    init(path: AttributePath, documents docs: [JSONObject]) {
        var numbers: [Double] = []
        var owners: [UInt32] = []
        for (d, doc) in docs.enumerated() {
            for case .number(let n) in path.leaves(in: doc) {
                numbers.append(n)
                owners.append(UInt32(d))
            }
        }
        self.init(numbers: numbers, documents: owners)
    }

    /// The first index whose number is not less than `x` (or greater, when `strictly`).
    func bound(_ x: Double, strictly: Bool) -> Int {
        var lo = 0
        var hi = numbers.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            let below = strictly ? numbers[mid] <= x : numbers[mid] < x
            if below { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// The documents with a number `n` for which `n op value` holds, into a set of `count` documents.
    func documents(_ op: NumericOperator, _ value: Double, count: Int) -> DocumentSet {
        let lo = bound(value, strictly: false)  // first >= value
        let hi = bound(value, strictly: true)  // first > value
        let ranges: [Range<Int>]
        switch op {
        case .lessThan: ranges = [0..<lo]
        case .lessOrEqual: ranges = [0..<hi]
        case .equal: ranges = [lo..<hi]
        case .notEqual: ranges = [0..<lo, hi..<numbers.count]
        case .greaterOrEqual: ranges = [lo..<numbers.count]
        case .greaterThan: ranges = [hi..<numbers.count]
        }
        var set = DocumentSet(capacity: count)
        for r in ranges { for i in r { set.insert(documents[i]) } }
        return set
    }

    /// The documents with a number in `lower...upper`, into a set of `count` documents.
    func documents(from lower: Double, through upper: Double, count: Int) -> DocumentSet {
        var set = DocumentSet(capacity: count)
        guard lower <= upper else { return set }
        let lo = bound(lower, strictly: false)
        let hi = bound(upper, strictly: true)
        for i in lo..<max(lo, hi) { set.insert(documents[i]) }
        return set
    }
}

/// A number with its document, for sorting.
private struct NumberEntry {
    var number: Double
    var document: UInt32
}
