import FederatedSearchCore

/// One source's contribution to the merged facets.
public struct FacetSource: Sendable {
    /// The name the source answers under.
    public var name: String
    /// The source's results; nil when it was asked but failed or timed out.
    public var results: SearchResults?

    public init(name: String, results: SearchResults?) {
        self.name = name
        self.results = results
    }
}

/// Facets merged across sources.
///
/// - Counts are summed per value under the canonical name (see
///   ``FacetMergeOptions/canonicalName(source:attribute:)``). A source contributes the values
///   it returned: a value outside its own top values counts 0 there, so ask each source for at
///   least `maxValuesPerFacet` values.
/// - Values are sorted by count descending, then value ascending, and cut to
///   `maxValuesPerFacet`. Facets keep the order in which they first appear (sources in the
///   order given, which should be the request order).
/// - Numeric stats: min of mins, max of maxes, sum of sums, and the average weighted by each
///   source's number of matches with a value. That number is recovered as `sum / avg`
///   (rounded; exact, since each source's avg is its sum over that number), so the merged
///   average is the average over all the sources' values; when it cannot be recovered
///   (`avg` is 0, or the ratio is not a positive finite number) the source's `nbHits` is used.
/// - Each merged facet lists the sources that reported it, in order.
/// - `exhaustive` is false when any source failed or timed out (`results` nil) or reported
///   `exhaustiveNbHits: false`.
public enum FacetMerge {
    public static func merge(_ sources: [FacetSource], options: FacetMergeOptions) -> MergedFacets {
        var facets = Accumulator<[String: Int]>()
        var stats = Accumulator<StatsSum>()
        var exhaustive = true
        for source in sources {
            guard let results = source.results else {
                exhaustive = false
                continue
            }
            if !results.exhaustiveNbHits { exhaustive = false }
            for f in results.facets {
                guard let name = options.canonicalName(source: source.name, attribute: f.attribute) else { continue }
                facets.update(name, index: source.name, initial: [:]) { counts in
                    for v in f.values { counts[v.value, default: 0] += v.count }
                }
            }
            for s in results.facetsStats {
                guard let name = options.canonicalName(source: source.name, attribute: s.attribute) else { continue }
                stats.update(name, index: source.name, initial: StatsSum()) { $0.add(s, nbHits: results.nbHits) }
            }
        }
        return MergedFacets(
            facets: facets.entries.map { e in
                let values = e.value.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
                    .prefix(options.maxValuesPerFacet).map { (value: $0.key, count: $0.value) }
                return MergedFacet(counts: FacetCounts(attribute: e.name, values: values), indices: e.indices)
            },
            stats: stats.entries.map { MergedFacetStats(stats: $0.value.stats(attribute: $0.name), indices: $0.indices) },
            exhaustive: exhaustive)
    }
}

/// Per canonical name, in order of first appearance: a value and the contributing sources.
private struct Accumulator<Value> {
    struct Entry {
        var name: String
        var value: Value
        var indices: [String]
    }
    var entries: [Entry] = []
    private var slots: [String: Int] = [:]

    mutating func update(_ name: String, index: String, initial: Value, _ body: (inout Value) -> Void) {
        let i: Int
        if let existing = slots[name] {
            i = existing
        } else {
            i = entries.count
            slots[name] = i
            entries.append(Entry(name: name, value: initial, indices: []))
        }
        body(&entries[i].value)
        if entries[i].indices.last != index { entries[i].indices.append(index) }
    }
}

/// Running totals of numeric facet stats.
private struct StatsSum {
    var min = Double.infinity
    var max = -Double.infinity
    var sum = 0.0
    var weightedAvg = 0.0
    var weight = 0.0
    var avgs: [Double] = []

    mutating func add(_ s: FacetStats, nbHits: Int) {
        min = Swift.min(min, s.min)
        max = Swift.max(max, s.max)
        sum += s.sum
        let recovered = s.avg != 0 ? (s.sum / s.avg).rounded() : .nan
        let w = recovered.isFinite && recovered > 0 ? recovered : Double(nbHits)
        weightedAvg += s.avg * w
        weight += w
        avgs.append(s.avg)
    }

    /// The merged stats; with no weight at all, the plain mean of the averages.
    func stats(attribute: String) -> FacetStats {
        let avg = weight > 0 ? weightedAvg / weight : avgs.reduce(0, +) / Double(avgs.count)
        return FacetStats(attribute: attribute, min: min, max: max, avg: avg, sum: sum)
    }
}
