import FederatedSearchCore

/// A searchable attribute and its place in the `attribute` ranking rule.
public struct SearchableAttribute: Sendable, Equatable {
    /// The attribute path (dots reach into nested objects: `author.name`).
    public var name: String
    /// Priority: attributes listed together (`"title,subtitle"`) share one.
    public var priority: Int
    /// Whether the position of a match inside the attribute is ignored (`unordered(attr)`).
    public var unordered: Bool

    public init(name: String, priority: Int, unordered: Bool = false) {
        self.name = name
        self.priority = priority
        self.unordered = unordered
    }
}

/// A faceting attribute and what it is used for.
public struct FacetingAttribute: Sendable, Equatable {
    public enum Mode: String, Sendable, Equatable {
        /// Counted and filterable.
        case normal
        /// Counted, filterable and searchable with `searchForFacetValues`.
        case searchable
        /// Filterable only; never counted (not returned by `facets: ["*"]`).
        case filterOnly
    }

    public var name: String
    public var mode: Mode

    public init(name: String, mode: Mode = .normal) {
        self.name = name
        self.mode = mode
    }
}

/// How typos are tolerated.
public enum TypoTolerance: String, Sendable, Equatable {
    /// Typos allowed, fewer typos ranked first.
    case enabled = "true"
    /// No typos.
    case disabled = "false"
    /// Only the hits with the fewest typos are kept.
    case min
    /// Only the hits with the fewest typos and one more are kept.
    case strict
}

/// One synonym set: all words of a multi-way set are interchangeable; a one-way set lets
/// `input` find its `synonyms` but not the reverse.
public struct Synonym: Sendable, Equatable {
    public var input: String?
    public var synonyms: [String]

    public init(input: String? = nil, synonyms: [String]) {
        self.input = input
        self.synonyms = synonyms
    }
}

/// The settings of one embedded index, decoded from the searchable's config object.
///
/// Keys follow Algolia's index settings. Unknown keys are rejected so a misspelt setting is
/// never silently ignored.
public struct IndexSettings: Sendable, Equatable {
    /// Attributes searched, in priority order. Empty: every attribute holding text, in the
    /// order they first appear in the documents.
    public var searchableAttributes: [SearchableAttribute] = []
    /// Attributes that can be faceted and filtered on. Numeric values of these attributes are
    /// also indexed for numeric filters and `facets_stats`. `_tags` is always filterable.
    public var attributesForFaceting: [FacetingAttribute] = []
    /// The attributes numeric filters may name besides the faceting ones (`equalOnly(x)` is
    /// read as `x`); nil, as in Algolia: every numeric attribute.
    public var numericAttributesForFiltering: [String]?
    /// Criteria of the `custom` rule, most important first.
    public var customRanking: [CustomRankingCriterion] = []
    /// The tie-breaking rules in order.
    public var ranking: [RankingRule] = RankingRule.defaults
    /// Characters normally treated as separators that are indexed as part of words ("+#").
    public var separatorsToIndex: String = ""
    /// Words ignored in queries (`removeStopWords: true` uses a built-in English list).
    public var stopWords: [String] = []
    /// Whether singular and plural (and other inflections) of English words match each other.
    public var ignorePlurals: Bool = false
    /// Languages of the queries; `en` turns on the English stemmer like `ignorePlurals`.
    public var queryLanguages: [String] = []
    /// Minimum word length for one typo.
    public var minWordSizefor1Typo: Int = 4
    /// Minimum word length for two typos.
    public var minWordSizefor2Typos: Int = 8
    /// Typo tolerance mode.
    public var typoTolerance: TypoTolerance = .enabled
    /// Synonym sets.
    public var synonyms: [Synonym] = []
    /// Attribute whose value groups hits for `distinct`.
    public var attributeForDistinct: String?
    /// Hits kept per distinct value (0: distinct off).
    public var distinct: Int = 0
    /// The number of hits reachable through pagination.
    public var paginationLimitedTo: Int = 1000
    /// Attributes never returned in hits.
    public var unretrievableAttributes: [String] = []
    /// Search parameters given as settings (``AlgoliaSettingNames/queryDefaults``), as given:
    /// the defaults of every search of the index, under the request's own parameters.
    public var queryDefaults: JSONObject = [:]
    /// BM25 term-frequency saturation.
    public var bm25K1: Double = 1.2
    /// BM25 length normalisation.
    public var bm25B: Double = 0.75

    public init() {}

    /// Whether the English stemmer is on.
    public var stemsEnglish: Bool { ignorePlurals || queryLanguages.contains("en") }
}
