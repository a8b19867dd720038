/// The search parameters a searchable receives: the Algolia parameters that the daemon
/// understands, validated, with the filters already parsed.
///
/// Unknown parameters are rejected with `unknown_field`, so a misspelt parameter is never
/// silently ignored.
public struct SearchParameters: Sendable, Equatable {
    /// Hits per page (default 20, at most 1000).
    public var hitsPerPage: Int = 20
    /// Zero-based page number.
    public var page: Int = 0
    /// Facets to count over all matches; `["*"]` means every faceting attribute.
    public var facets: [String] = []
    /// Maximum facet values returned per facet, by count then value.
    public var maxValuesPerFacet: Int = 100
    /// The `filters` string as sent (kept for `params` in the response).
    public var filters: String?
    /// `facetFilters` as sent.
    public var facetFilters: JSONValue?
    /// `numericFilters` as sent.
    public var numericFilters: JSONValue?
    /// `tagFilters` as sent.
    public var tagFilters: JSONValue?
    /// The conjunction of all filter parameters, parsed.
    public var filter: FilterExpression?
    /// Attributes to return in each hit (`nil` or `["*"]`: all).
    public var attributesToRetrieve: [String]?
    /// Attributes to highlight (`nil`: the searchable attributes).
    public var attributesToHighlight: [String]?
    /// Tag inserted before a highlighted match.
    public var highlightPreTag: String = "<em>"
    /// Tag inserted after a highlighted match.
    public var highlightPostTag: String = "</em>"
    /// Whether hits carry `_rankingInfo`.
    public var getRankingInfo: Bool = false
    /// Whether the last query word is matched as a prefix (`prefixLast`, the default),
    /// every word (`prefixAll`), or none (`prefixNone`).
    public var queryType: QueryType = .prefixLast
    /// Whether typos are tolerated.
    public var typoTolerance: Bool = true

    // Engine parameters (decoded in SearchParameters+Engine.swift).
    /// `typoTolerance` as sent when it is `"min"` or `"strict"` (or a Boolean); nil: the index's setting.
    public var typoToleranceMode: TypoToleranceParameter?
    /// First hit to return, with `length`; overrides `page`/`hitsPerPage` when set.
    public var offset: Int?
    /// Number of hits to return from `offset`.
    public var length: Int?
    /// Attributes to snippet, each optionally with a word count (`"extract:20"`, default 10).
    public var attributesToSnippet: [String]?
    /// Text marking a cut in a snippet.
    public var snippetEllipsisText: String = "…"
    /// Facets counted disjunctively: their counts ignore their own refinements.
    public var disjunctiveFacets: [String] = []
    /// How facet values are ordered.
    public var sortFacetValuesBy: FacetValueOrder = .count
    /// Words that documents may lack (a string of words, or a list).
    public var optionalWords: [String] = []
    /// What to drop from a query that matches nothing.
    public var removeWordsIfNoResults: RemoveWordsMode = .none
    /// `all`: every word must match; `any`: at least one (ranked by words matched and BM25).
    public var matchingStrategy: MatchingStrategy = .all
    /// Whether quoted phrases and `-exclusions` are understood.
    public var advancedSyntax: Bool = true
    /// Hits kept per `attributeForDistinct` value (nil: the index's setting).
    public var distinct: Int?
    /// Centre of a geo search, as `"lat, lng"`.
    public var aroundLatLng: GeoPoint?
    /// Radius of a geo search in metres (nil: no limit).
    public var aroundRadius: Double?
    /// Query-time overrides of the index's typo word sizes.
    public var minWordSizefor1Typo: Int?
    public var minWordSizefor2Typos: Int?
    /// Restricts the search to these searchable attributes.
    public var restrictSearchableAttributes: [String]?

    public init() {}

    /// How query words are matched as prefixes.
    public enum QueryType: String, Sendable, Equatable {
        case prefixLast, prefixAll, prefixNone
    }

    /// The largest `hitsPerPage` accepted.
    public static let maxHitsPerPage = 1000
    /// The longest `highlightPreTag`, `highlightPostTag` and `snippetEllipsisText`, in bytes:
    /// each is copied into every highlighted or snippeted value of every hit.
    public static let maxMarkupBytes = 128

    /// Decodes parameters from a request's `params` object; `path` names it in errors.
    /// With `ignoringUnknownKeys`, parameters the daemon does not know are skipped rather than
    /// refused (as Algolia's API does: its clients send parameters such as `analytics`).
    public static func decode(
        _ object: JSONObject, path: String = "params", ignoringUnknownKeys: Bool = false
    ) throws(SearchError) -> SearchParameters {
        var p = SearchParameters()
        try p.apply(object, path: path, ignoringUnknownKeys: ignoringUnknownKeys)
        return p
    }

    /// Overlays the fields present in `object` (used for per-index overrides); returns the keys
    /// it does not know (skipped with `ignoringUnknownKeys`, refused without).
    @discardableResult
    public mutating func apply(_ object: JSONObject, path: String, ignoringUnknownKeys: Bool = false) throws(SearchError) -> [String] {
        var r = FieldReader(object, path: path, readsEachKeyOnce: true)
        if let v = try r.int("hitsPerPage", in: 0...Self.maxHitsPerPage) { hitsPerPage = v }
        if let v = try r.int("page", in: 0...1_000_000) { page = v }
        if let v = try r.stringArray("facets", allowSingle: true) { facets = v }
        if let v = try r.int("maxValuesPerFacet", in: 1...10_000) { maxValuesPerFacet = v }
        if let v = try r.string("filters") { filters = v.isEmpty ? nil : v }
        if let v = r.value("facetFilters") { facetFilters = v }
        if let v = r.value("numericFilters") { numericFilters = v }
        if let v = r.value("tagFilters") { tagFilters = v }
        if let v = try r.stringArray("attributesToRetrieve", allowSingle: true) { attributesToRetrieve = v }
        if let v = try r.stringArray("attributesToHighlight", allowSingle: true) { attributesToHighlight = v }
        if let v = try r.string("highlightPreTag", maxBytes: Self.maxMarkupBytes) { highlightPreTag = v }
        if let v = try r.string("highlightPostTag", maxBytes: Self.maxMarkupBytes) { highlightPostTag = v }
        if let v = try r.bool("getRankingInfo") { getRankingInfo = v }
        try applyEngineParameters(&r)
        if let v = try r.string("queryType") {
            guard let q = QueryType(rawValue: v) else {
                throw SearchError(.invalidField, "\(r.path(of: "queryType")): expected prefixLast, prefixAll or prefixNone, got '\(v)'")
            }
            queryType = q
        }
        if !ignoringUnknownKeys { try r.rejectUnknownKeys() }
        let unknown = ignoringUnknownKeys ? r.unreadKeys() : []
        filter = try Self.combinedFilter(
            filters: filters, facetFilters: facetFilters, numericFilters: numericFilters, tagFilters: tagFilters,
            path: path)
        return unknown
    }

    /// Parses and combines all filter parameters into one expression.
    static func combinedFilter(
        filters: String?, facetFilters: JSONValue?, numericFilters: JSONValue?, tagFilters: JSONValue?, path: String
    ) throws(SearchError) -> FilterExpression? {
        var parts: [FilterExpression?] = []
        if let filters {
            do { parts.append(try FilterParser.parse(filters)) } catch {
                throw SearchError(error.code, "\(path).filters: \(error.message)")
            }
        }
        if let facetFilters {
            parts.append(try nested(facetFilters, path: "\(path).facetFilters", FilterParser.parseFacetCondition))
        }
        if let numericFilters {
            parts.append(try nested(numericFilters, path: "\(path).numericFilters", FilterParser.parseNumericCondition))
        }
        if let tagFilters {
            parts.append(
                try nested(tagFilters, path: "\(path).tagFilters") { (s: String) throws(SearchError) in
                    FilterParser.parseTagCondition(s)
                })
        }
        return FilterExpression.allOf(parts)
    }

    /// Algolia's nested-array form: a string, or an array whose items are strings (ANDed) or
    /// arrays of strings (ORed).
    static func nested(
        _ value: JSONValue, path: String, _ parseItem: (String) throws(SearchError) -> FilterExpression
    ) throws(SearchError) -> FilterExpression? {
        func item(_ s: String, _ itemPath: String) throws(SearchError) -> FilterExpression {
            do { return try parseItem(s) } catch { throw SearchError(error.code, "\(itemPath): \(error.message)") }
        }
        switch value {
        case .string(let s):
            // A comma-separated string is Algolia's legacy form of an AND list.
            let pieces = s.split(separator: ",").map { String($0).trimmingSpaces() }.filter { !$0.isEmpty }
            var ands: [FilterExpression] = []
            for piece in pieces { ands.append(try item(piece, path)) }
            return FilterExpression.allOf(ands)
        case .array(let outer):
            var ands: [FilterExpression] = []
            for (i, element) in outer.enumerated() {
                switch element {
                case .string(let s): ands.append(try item(s, "\(path)[\(i)]"))
                case .array(let inner):
                    var ors: [FilterExpression] = []
                    for (j, x) in inner.enumerated() {
                        guard case .string(let s) = x else {
                            throw SearchError(.invalidField, "\(path)[\(i)][\(j)]: expected a string, got \(x.typeName)")
                        }
                        ors.append(try item(s, "\(path)[\(i)][\(j)]"))
                    }
                    if !ors.isEmpty { ands.append(ors.count == 1 ? ors[0] : .or(ors)) }
                default:
                    throw SearchError(.invalidField, "\(path)[\(i)]: expected a string or an array of strings, got \(element.typeName)")
                }
            }
            return FilterExpression.allOf(ands)
        default:
            throw SearchError(.invalidField, "\(path): expected a string or an array, got \(value.typeName)")
        }
    }

    /// The parameters in Algolia's URL-encoded `params` form, as echoed in a response.
    public func encodedForResponse(query: String) -> String {
        var pairs: [(String, String)] = [("query", query), ("hitsPerPage", String(hitsPerPage)), ("page", String(page))]
        if !facets.isEmpty { pairs.append(("facets", JSONWriter.string(.array(facets.map { .string($0) })))) }
        if let filters { pairs.append(("filters", filters)) }
        if let facetFilters { pairs.append(("facetFilters", JSONWriter.string(facetFilters))) }
        if let numericFilters { pairs.append(("numericFilters", JSONWriter.string(numericFilters))) }
        if let tagFilters { pairs.append(("tagFilters", JSONWriter.string(tagFilters))) }
        // Written as bytes: every search echoes it, and string interpolation and `joined`
        // cost more than the rest of a small response's fields together.
        var out: [UInt8] = []
        out.reserveCapacity(64 + query.utf8.count)
        for (i, pair) in pairs.enumerated() {
            if i > 0 { out.append(UInt8(ascii: "&")) }
            out.append(contentsOf: pair.0.utf8)
            out.append(UInt8(ascii: "="))
            Self.percentEncode(pair.1, into: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters, so a value can never
    /// end a query parameter or a path segment (`&`, `=`, `+`, `/`, `#`, `?`, spaces, UTF-8).
    public static func percentEncode(_ s: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count)
        percentEncode(s, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// ``percentEncode(_:)``, appended to `out`.
    static func percentEncode(_ s: String, into out: inout [UInt8]) {
        func hex(_ v: UInt8) -> UInt8 { v < 10 ? UInt8(ascii: "0") + v : UInt8(ascii: "A") + v - 10 }
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                out.append(b)
            default:
                out.append(UInt8(ascii: "%"))
                out.append(hex(b >> 4))
                out.append(hex(b & 15))
            }
        }
    }
}
