import FederatedSearchCore

/// Everything an index knows, built once and never mutated: queries read it without locks,
/// and a later update would build a new snapshot and swap it in whole. A class, so that the
/// parts of a query holding it share one reference instead of copying its many arrays.
final class IndexSnapshot: Sendable {
    let settings: IndexSettings
    let analyzer: TextAnalyzer
    let documents: [JSONObject]
    /// The documents' attributes as JSON text, filled as queries retrieve them.
    let encodedAttributes: EncodedAttributes
    let objectIDs: [String]
    /// Each document's place in its index's order (a durable index's insertion order): the
    /// last tie-break between documents of different segments.
    let positions: [Int64]
    let text: TextIndex
    let facets: [FacetField]
    let facetByName: [String: Int]
    /// Rank of each document under `customRanking` (0 = first).
    let customOrdinal: [UInt32]
    /// The sort key of each `customRanking` ordinal (see ``SortOrdinals/table(documents:criteria:)``).
    let customValues: [Double]
    /// Rank of each document under each `asc(attr)` / `desc(attr)` ranking rule, by rule text.
    let sortOrdinals: [String: [UInt32]]
    /// The sort key of each ordinal of `sortOrdinals`, by rule text.
    let sortValues: [String: [Double]]
    /// `_geoloc` of each document (NaN when absent); empty when no document has one.
    let latitudes: [Double]
    let longitudes: [Double]
    /// Value id of `attributeForDistinct` per document (`UInt32.max`: none).
    let distinctKeys: [UInt32]
    /// The value of each id of `distinctKeys`.
    let distinctValues: [String]
    let stemmer: EnglishStemmer?
    /// Stem → ids of the indexed terms with that stem (when the stemmer is on).
    let stemGroups: [String: [UInt32]]
    let synonyms: SynonymTable
    let stopWords: Set<String>
    /// Numbers of attributes that are not faceting attributes, gathered when a filter names one.
    let lazyNumbers = LazyNumericFields()
    /// The documents in `objectID` order, sorted when a browse first reads this snapshot.
    let objectIDOrder = LazyObjectIDOrder()
    /// Documents before each `customRanking` ordinal (see ``UserScores``), built on first use.
    let customRankCounts = LazyCustomRankCounts()

    var documentCount: Int { documents.count }

    /// Documents are numbered in `customRanking` order (equal ones in their given order), so
    /// that no document ranks above an earlier one on custom ranking: ranking scans candidates
    /// by number and stops once no later one can enter its top k (see
    /// ``QueryExecutor/rankPruned(_:ranker:visitor:requiredCount:top:)``). Results are the
    /// same in any numbering: custom ranking is part of every key, before the number.
    ///
    /// `positions` are the documents' places in the index's order, ascending (nil: 0, 1, ...).
    convenience init(
        settings: IndexSettings, documents given: [JSONObject], objectIDs givenIDs: [String], positions givenPositions: [Int64]? = nil
    ) {
        var documents = given
        var objectIDs = givenIDs
        var positions = givenPositions ?? (0..<Int64(given.count)).map { $0 }
        if !settings.customRanking.isEmpty {
            let order = SortOrdinals.order(documents: given, criteria: settings.customRanking)
            documents = order.map { given[$0] }
            objectIDs = order.map { givenIDs[$0] }
            positions = order.map { positions[$0] }
        }
        let analyzer = TextAnalyzer(separatorsToIndex: settings.separatorsToIndex)
        let searchable =
            settings.searchableAttributes.isEmpty
            ? Self.discoverTextAttributes(documents) : settings.searchableAttributes
        let text = TextIndex(documents: documents, attributes: searchable, analyzer: analyzer)
        let fields = Self.facetingAttributes(settings).map {
            FacetField(attribute: $0, documents: documents, analyzer: analyzer)
        }
        let custom = SortOrdinals.table(documents: documents, criteria: settings.customRanking)
        var sorts: [String: (ordinals: [UInt32], values: [Double])] = [:]
        for (rule, criterion) in Self.sortRules(settings) {
            sorts[rule] = SortOrdinals.table(documents: documents, criteria: [criterion])
        }
        let geo = Self.geolocations(documents)
        let distinct = Self.distinctKeys(documents, attribute: settings.attributeForDistinct)
        self.init(
            settings: settings, documents: documents, objectIDs: objectIDs, positions: positions,
            parts: SnapshotParts(
                text: text, facets: fields, customOrdinal: custom.0, customValues: custom.1, sorts: sorts,
                latitudes: geo.0, longitudes: geo.1, distinctKeys: distinct.0, distinctValues: distinct.1))
    }

    /// What is built from the documents (above), or read from a saved segment.
    struct SnapshotParts {
        var text: TextIndex
        var facets: [FacetField]
        var customOrdinal: [UInt32]
        var customValues: [Double]
        /// Ordinals and their sort keys by ranking rule text (see ``sortRules(_:)``).
        var sorts: [String: (ordinals: [UInt32], values: [Double])]
        var latitudes: [Double]
        var longitudes: [Double]
        var distinctKeys: [UInt32]
        var distinctValues: [String]
    }

    /// A snapshot of `documents`, already in its numbering, from its parts; what only the
    /// settings determine (analyser, stems, synonyms, stop words) is made here.
    init(settings: IndexSettings, documents: [JSONObject], objectIDs: [String], positions: [Int64], parts: SnapshotParts) {
        self.settings = settings
        self.documents = documents
        self.encodedAttributes = EncodedAttributes(count: documents.count)
        self.objectIDs = objectIDs
        self.positions = positions
        let analyzer = TextAnalyzer(separatorsToIndex: settings.separatorsToIndex)
        self.analyzer = analyzer
        let text = parts.text
        self.text = text
        facets = parts.facets
        var byName: [String: Int] = [:]
        for (i, f) in parts.facets.enumerated() { byName[f.name] = i }
        facetByName = byName
        customOrdinal = parts.customOrdinal
        customValues = parts.customValues
        sortOrdinals = parts.sorts.mapValues(\.ordinals)
        sortValues = parts.sorts.mapValues(\.values)
        latitudes = parts.latitudes
        longitudes = parts.longitudes
        distinctKeys = parts.distinctKeys
        distinctValues = parts.distinctValues
        let stemmer = settings.stemsEnglish ? EnglishStemmer() : nil
        self.stemmer = stemmer
        var groups: [String: [UInt32]] = [:]
        if let stemmer {
            for id in 0..<text.dictionary.count {
                let term = text.dictionary.string(id)
                groups[stemmer.stem(term), default: []].append(UInt32(id))
            }
        }
        stemGroups = groups
        synonyms = SynonymTable(settings.synonyms, analyzer: analyzer)
        stopWords = Set(settings.stopWords.flatMap { analyzer.queryTokens($0).map(\.term) })
    }

    /// The faceting attributes a snapshot indexes, in order: the settings', then `_tags`
    /// (always filterable), each once.
    static func facetingAttributes(_ settings: IndexSettings) -> [FacetingAttribute] {
        var faceting = settings.attributesForFaceting
        if !faceting.contains(where: { $0.name == "_tags" }) {
            faceting.append(FacetingAttribute(name: "_tags", mode: .filterOnly))
        }
        var seen: Set<String> = []
        return faceting.filter { seen.insert($0.name).inserted }
    }

    /// The `asc(attr)` / `desc(attr)` ranking rules, by rule text, in the ranking's order.
    static func sortRules(_ settings: IndexSettings) -> [(rule: String, criterion: CustomRankingCriterion)] {
        var out: [(rule: String, criterion: CustomRankingCriterion)] = []
        for rule in settings.ranking {
            if case .sort(let attribute, let ascending) = rule, !out.contains(where: { $0.rule == rule.description }) {
                out.append((rule.description, CustomRankingCriterion(attribute: attribute, ascending: ascending)))
            }
        }
        return out
    }

    /// Every top-level attribute holding text, in order of first appearance (but those in `known`).
    static func discoverTextAttributes(_ documents: [JSONObject], known: Set<String> = []) -> [SearchableAttribute] {
        var names: [String] = []
        var seen: Set<String> = known.union(["objectID"])
        for doc in documents {
            for e in doc.entries where !seen.contains(e.key) && !e.key.hasPrefix("_") {
                let isText: Bool
                switch e.value {
                case .string: isText = true
                case .array(let items): isText = items.contains { $0.stringValue != nil }
                default: isText = false
                }
                if isText {
                    seen.insert(e.key)
                    names.append(e.key)
                }
            }
        }
        return names.enumerated().map { SearchableAttribute(name: $1, priority: $0) }
    }

    static func geolocations(_ documents: [JSONObject]) -> ([Double], [Double]) {
        var lat = [Double](repeating: .nan, count: documents.count)
        var lng = lat
        var any = false
        for (d, doc) in documents.enumerated() {
            var g = doc["_geoloc"]
            if case .array(let items)? = g { g = items.first }
            guard case .object(let o)? = g, let a = o["lat"]?.numberValue, let b = o["lng"]?.numberValue else { continue }
            lat[d] = a
            lng[d] = b
            any = true
        }
        return any ? (lat, lng) : ([], [])
    }

    static func distinctKeys(_ documents: [JSONObject], attribute: String?) -> ([UInt32], [String]) {
        guard let attribute else { return ([], []) }
        let path = AttributePath(attribute)
        var ids: [String: UInt32] = [:]
        var values: [String] = []
        let keys = documents.map { doc -> UInt32 in
            guard let leaf = path.leaves(in: doc).first, let v = AttributePath.facetValue(of: leaf) else { return .max }
            if let id = ids[v] { return id }
            let id = UInt32(ids.count)
            ids[v] = id
            values.append(v)
            return id
        }
        return (keys, values)
    }
}
