/// `typoTolerance` as a query parameter.
public enum TypoToleranceParameter: String, Sendable, Equatable {
    case enabled = "true"
    case disabled = "false"
    case min, strict
}

/// How facet values are ordered in a response.
public enum FacetValueOrder: String, Sendable, Equatable {
    /// Most frequent first, then by value.
    case count
    /// By value.
    case alpha
}

/// What `removeWordsIfNoResults` drops from a query that matches nothing.
public enum RemoveWordsMode: String, Sendable, Equatable {
    case none, lastWords, firstWords, allOptional
}

/// Whether every query word must match.
public enum MatchingStrategy: String, Sendable, Equatable {
    /// Every word (AND).
    case all
    /// At least one word (OR), ranked by the words matched and BM25.
    case any
}

/// A point on Earth in degrees.
public struct GeoPoint: Sendable, Equatable {
    public var lat: Double
    public var lng: Double
    public init(lat: Double, lng: Double) {
        self.lat = lat
        self.lng = lng
    }

    /// Parses `"lat, lng"`.
    public static func parse(_ s: String) -> GeoPoint? {
        let parts = s.split(separator: ",").map { String($0).trimmingSpaces() }
        guard parts.count == 2, let lat = Double(parts[0]), let lng = Double(parts[1]),
            (-90...90).contains(lat), (-180...180).contains(lng)
        else { return nil }
        return GeoPoint(lat: lat, lng: lng)
    }
}

extension SearchParameters {
    /// Decodes the parameters the embedded engine adds (called from ``apply(_:path:)``).
    mutating func applyEngineParameters(_ r: inout FieldReader) throws(SearchError) {
        if let v = r.value("typoTolerance") {
            switch v {
            case .bool(let b):
                typoTolerance = b
                typoToleranceMode = b ? .enabled : .disabled
            case .string(let s):
                guard let m = TypoToleranceParameter(rawValue: s) else {
                    throw SearchError(
                        .invalidField, "\(r.path(of: "typoTolerance")): expected true, false, \"min\" or \"strict\", got '\(s)'")
                }
                typoToleranceMode = m
                typoTolerance = m != .disabled
            default:
                throw SearchError(.invalidField, "\(r.path(of: "typoTolerance")): expected a boolean or a string, got \(v.typeName)")
            }
        }
        if let v = try r.int("offset", in: 0...1_000_000) { offset = v }
        if let v = try r.int("length", in: 0...Self.maxHitsPerPage) { length = v }
        if let v = try r.stringArray("attributesToSnippet", allowSingle: true) { attributesToSnippet = v }
        if let v = try r.string("snippetEllipsisText", maxBytes: Self.maxMarkupBytes) { snippetEllipsisText = v }
        if let v = try r.stringArray("disjunctiveFacets", allowSingle: true) { disjunctiveFacets = v }
        if let v = try r.string("sortFacetValuesBy") {
            guard let o = FacetValueOrder(rawValue: v) else {
                throw SearchError(.invalidField, "\(r.path(of: "sortFacetValuesBy")): expected count or alpha, got '\(v)'")
            }
            sortFacetValuesBy = o
        }
        if let v = try r.stringArray("optionalWords", allowSingle: true) { optionalWords = v }
        if let v = try r.string("removeWordsIfNoResults") {
            guard let m = RemoveWordsMode(rawValue: v) else {
                throw SearchError(
                    .invalidField,
                    "\(r.path(of: "removeWordsIfNoResults")): expected none, lastWords, firstWords or allOptional, got '\(v)'")
            }
            removeWordsIfNoResults = m
        }
        if let v = try r.string("matchingStrategy") {
            guard let m = MatchingStrategy(rawValue: v) else {
                throw SearchError(.invalidField, "\(r.path(of: "matchingStrategy")): expected all or any, got '\(v)'")
            }
            matchingStrategy = m
        }
        if let v = try r.bool("advancedSyntax") { advancedSyntax = v }
        if let v = r.value("distinct") {
            if case .bool(let b) = v {
                distinct = b ? 1 : 0
            } else if let n = v.intValue, (0...100).contains(n) {
                distinct = n
            } else {
                throw SearchError(
                    .invalidField, "\(r.path(of: "distinct")): expected a boolean or an integer in 0...100, got \(v.typeName)")
            }
        }
        if let v = try r.string("aroundLatLng") {
            guard let g = GeoPoint.parse(v) else {
                throw SearchError(.invalidField, "\(r.path(of: "aroundLatLng")): expected \"lat, lng\" in degrees, got '\(v)'")
            }
            aroundLatLng = g
        }
        if let v = r.value("aroundRadius") {
            if case .string("all") = v {
                aroundRadius = nil
            } else if let n = v.numberValue, n > 0 {
                aroundRadius = n
            } else {
                throw SearchError(.invalidField, "\(r.path(of: "aroundRadius")): expected a positive number of metres or \"all\"")
            }
        }
        if let v = try r.int("minWordSizefor1Typo", in: 1...100) { minWordSizefor1Typo = v }
        if let v = try r.int("minWordSizefor2Typos", in: 1...100) { minWordSizefor2Typos = v }
        if let v = try r.stringArray("restrictSearchableAttributes", allowSingle: true) { restrictSearchableAttributes = v }
    }
}
