/// Ascending document numbers, indexed from zero, held as a slice of the array they came
/// from: a query of one word matches its posting list's documents, which this shares rather
/// than copies (a common word's list is a large share of the index).
struct DocumentList: RandomAccessCollection, ExpressibleByArrayLiteral, Sendable {
    private var storage: ArraySlice<UInt32>

    init(_ documents: [UInt32]) { storage = documents[...] }
    init(_ documents: ArraySlice<UInt32>) { storage = documents }
    init(arrayLiteral documents: UInt32...) { storage = documents[...] }

    var startIndex: Int { 0 }
    var endIndex: Int { storage.count }
    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }

    /// The documents as the slice they are held in (its indices are the array's).
    var elements: ArraySlice<UInt32> { storage }

    @inline(__always) subscript(i: Int) -> UInt32 { storage[storage.startIndex &+ i] }

    /// The slice's own iterator: a loop over the documents runs as over an array.
    func makeIterator() -> IndexingIterator<ArraySlice<UInt32>> { storage.makeIterator() }

    /// Drops the documents for which `drop` holds (a copy only if any is dropped).
    mutating func removeAll(where drop: (UInt32) throws -> Bool) rethrows {
        guard let first = try storage.firstIndex(where: drop) else { return }
        var kept = Array(storage[..<first])
        for d in storage[(first + 1)...] where try !drop(d) { kept.append(d) }
        storage = kept[...]
    }

    /// The documents for which `keep` holds.
    func filtered(_ keep: (UInt32) throws -> Bool) rethrows -> DocumentList {
        var out = self
        try out.removeAll { try !keep($0) }
        return out
    }
}
