import FederatedSearchCore

/// One faceting attribute, indexed both ways: document → values (for counting) and
/// value → documents (for filters), plus its numeric values sorted (for numeric filters)
/// and per document (for `facets_stats`). A class, so that a query reading it from its
/// snapshot takes one reference rather than copying its arrays.
final class FacetField: Sendable {
    let name: String
    let mode: FacetingAttribute.Mode
    /// Distinct values sorted by bytes; a value's id is its index.
    let values: [String]
    /// Folded value → ids, for filters written in another case or without accents.
    let foldedValues: [String: [UInt32]]
    /// Values of document `d`: `docValues[docStart[d]..<docStart[d + 1]]`.
    let docStart: [UInt32]
    let docValues: [UInt32]
    /// Whether every document has exactly one value (a category, a brand, a year): then
    /// document `d`'s value is `docValues[d]`, and counting reads no `docStart`.
    let oneValuePerDocument: Bool

    /// Where document `d`'s values are in `docValues`.
    func valueIndices(of d: Int) -> Range<Int> {
        oneValuePerDocument ? d..<(d + 1) : Int(docStart[d])..<Int(docStart[d + 1])
    }
    /// Documents of value `v`, ascending: `valueDocs[valueStart[v]..<valueStart[v + 1]]`.
    let valueStart: [UInt32]
    let valueDocs: [UInt32]
    /// Numeric values of document `d`: `numbers[numberStart[d]..<numberStart[d + 1]]`.
    let numberStart: [UInt32]
    let numbers: [Double]
    /// All (number, document) pairs sorted by number, for numeric filters.
    let sortedNumbers: SortedNumbers

    /// Whether any document has a numeric value here.
    var isNumeric: Bool { !numbers.isEmpty }

    /// The ids of a filter value: exact first, else its folded form. `exactAnywhere` says,
    /// for an index of several segments, whether any of them has the exact value.
    func ids(of value: String, analyzer: TextAnalyzer, exactAnywhere: Bool? = nil) -> [UInt32] {
        let exact = exactId(value)
        if exactAnywhere ?? (exact != nil) { return exact.map { [$0] } ?? [] }
        return foldedValues[analyzer.fold(value)] ?? []
    }

    /// The id of exactly this value, if the field has it.
    func exactId(_ value: String) -> UInt32? {
        let key = Array(value.utf8)
        var lo = 0
        var hi = values.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if values[mid].utf8.lexicographicallyPrecedes(key) { lo = mid + 1 } else { hi = mid }
        }
        return lo < values.count && values[lo] == value ? UInt32(lo) : nil
    }

    /// Builds the field from every document.
    convenience init(attribute: FacetingAttribute, documents: [JSONObject], analyzer: TextAnalyzer) {
        let path = AttributePath(attribute.name)
        var provisional: [String: UInt32] = [:]
        var provisionalValues: [String] = []
        var pairDoc: [UInt32] = []
        var pairValue: [UInt32] = []
        var docStart: [UInt32] = [0]
        var numberStart: [UInt32] = [0]
        var numbers: [Double] = []
        docStart.reserveCapacity(documents.count + 1)
        numberStart.reserveCapacity(documents.count + 1)
        var seen: [UInt32] = []
        for (d, doc) in documents.enumerated() {
            seen.removeAll(keepingCapacity: true)
            for leaf in path.leaves(in: doc) {
                if case .number(let n) = leaf { numbers.append(n) }
                guard let s = AttributePath.facetValue(of: leaf) else { continue }
                let id: UInt32
                if let known = provisional[s] {
                    id = known
                } else {
                    id = UInt32(provisionalValues.count)
                    provisional[s] = id
                    provisionalValues.append(s)
                }
                if !seen.contains(id) {
                    seen.append(id)
                    pairDoc.append(UInt32(d))
                    pairValue.append(id)
                }
            }
            docStart.append(UInt32(pairDoc.count))
            numberStart.append(UInt32(numbers.count))
        }
        // Renumber values in byte order so that "value ascending" is "id ascending".
        // ASCII strings compare by bytes with `<` (its fast path); others need the UTF-8 view.
        let ascii = provisionalValues.allSatisfy { $0.utf8.allSatisfy { $0 < 0x80 } }
        let order =
            ascii
            ? provisionalValues.indices.sorted { provisionalValues[$0] < provisionalValues[$1] }
            : provisionalValues.indices.sorted { provisionalValues[$0].utf8.lexicographicallyPrecedes(provisionalValues[$1].utf8) }
        var remap = [UInt32](repeating: 0, count: order.count)
        for (newId, old) in order.enumerated() { remap[old] = UInt32(newId) }
        let values = order.map { provisionalValues[$0] }
        var docValues = pairValue.map { remap[Int($0)] }
        for d in 0..<documents.count {  // keep each document's values sorted by id
            let r = Int(docStart[d])..<Int(docStart[d + 1])
            if r.count > 1 { docValues[r].sort() }
        }
        // Value → documents by counting sort; documents stay ascending.
        var valueStart = [UInt32](repeating: 0, count: values.count + 1)
        for v in docValues { valueStart[Int(v) + 1] += 1 }
        for i in 0..<values.count { valueStart[i + 1] += valueStart[i] }
        var fill = valueStart
        var valueDocs = [UInt32](repeating: 0, count: docValues.count)
        for d in 0..<documents.count {
            for k in Int(docStart[d])..<Int(docStart[d + 1]) {
                let v = Int(docValues[k])
                valueDocs[Int(fill[v])] = UInt32(d)
                fill[v] += 1
            }
        }
        var numberDocs: [UInt32] = []
        numberDocs.reserveCapacity(numbers.count)
        for d in 0..<documents.count {
            for _ in Int(numberStart[d])..<Int(numberStart[d + 1]) { numberDocs.append(UInt32(d)) }
        }
        self.init(
            attribute: attribute, values: values, docStart: docStart, docValues: docValues, valueStart: valueStart,
            valueDocs: valueDocs, numberStart: numberStart, numbers: numbers,
            sortedNumbers: SortedNumbers(numbers: numbers, documents: numberDocs), analyzer: analyzer)
    }

    /// A field from its parts (built above, or read from a saved segment).
    init(
        attribute: FacetingAttribute, values: [String], docStart: [UInt32], docValues: [UInt32], valueStart: [UInt32],
        valueDocs: [UInt32], numberStart: [UInt32], numbers: [Double], sortedNumbers: SortedNumbers, analyzer: TextAnalyzer
    ) {
        name = attribute.name
        mode = attribute.mode
        self.values = values
        var folded: [String: [UInt32]] = [:]
        for (i, v) in values.enumerated() { folded[analyzer.fold(v), default: []].append(UInt32(i)) }
        let documentCount = docStart.count - 1
        self.docStart = docStart
        self.docValues = docValues
        // Exactly one each: as many values as documents, none without one.
        oneValuePerDocument =
            docValues.count == documentCount
            && (0..<documentCount).allSatisfy { docStart[$0 + 1] != docStart[$0] }
        self.valueStart = valueStart
        self.valueDocs = valueDocs
        self.foldedValues = folded
        self.numberStart = numberStart
        self.numbers = numbers
        self.sortedNumbers = sortedNumbers
    }

    /// The documents of value `v`.
    func documents(ofValue v: UInt32) -> ArraySlice<UInt32> {
        valueDocs[Int(valueStart[Int(v)])..<Int(valueStart[Int(v) + 1])]
    }
}
