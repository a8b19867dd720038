import FederatedSearchCore
import Synchronization

// What a snapshot builds only when a query first needs it, each kept for the snapshot's life
// (a snapshot never changes, so what is built from it stays right).

/// The sorted numbers of attributes that are not faceting attributes, built the first time a
/// numeric filter names one: Algolia filters numerically on every numeric attribute unless
/// `numericAttributesForFiltering` lists them, and most indices never do, so none is built
/// ahead. A snapshot never changes, so an entry, once built, stays right for its life.
final class LazyNumericFields: Sendable {
    private let built = Mutex<[String: SortedNumbers]>([:])

    /// The numbers of `attribute` over `documents`, built on first use.
    func numbers(of attribute: String, documents: [JSONObject]) -> SortedNumbers {
        if let known = built.withLock({ $0[attribute] }) { return known }
        // Built outside the lock: two queries may both build it, and both get the same answer.
        let numbers = SortedNumbers(path: AttributePath(attribute), documents: documents)
        built.withLock { $0[attribute] = numbers }
        return numbers
    }
}

/// A snapshot's documents in `objectID` byte order, built the first time a browse reads the
/// snapshot: a browse's cursor is the last `objectID` it gave, so each page starts by bisection.
final class LazyObjectIDOrder: Sendable {
    private let built = Mutex<[UInt32]?>(nil)

    /// The documents sorted by their `objectID`s' bytes.
    func order(of objectIDs: [String]) -> [UInt32] {
        if let known = built.withLock({ $0 }) { return known }
        let order = objectIDs.indices.sorted { objectIDs[$0].utf8.lexicographicallyPrecedes(objectIDs[$1].utf8) }.map { UInt32($0) }
        built.withLock { $0 = order }
        return order
    }
}

/// How many documents come before each `customRanking` ordinal (`below[o]`: documents whose
/// ordinal is under `o`, for `o` up to the number of ordinals), built the first time a query
/// asks for `_rankingInfo` (its `userScore`).
final class LazyCustomRankCounts: Sendable {
    private let built = Mutex<[Int]?>(nil)

    func below(_ ordinals: [UInt32], distinct: Int) -> [Int] {
        if let known = built.withLock({ $0 }) { return known }
        var counts = [Int](repeating: 0, count: distinct + 1)
        for o in ordinals { counts[Int(o) + 1] += 1 }
        for i in counts.indices.dropFirst() { counts[i] += counts[i - 1] }
        built.withLock { $0 = counts }
        return counts
    }
}
