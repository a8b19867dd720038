import FederatedSearchCore

/// One Typesense search: the query-string parameters of
/// `GET /collections/{collection}/documents/search`, and what the answer's mapping needs to
/// know about the query.
public struct TypesenseRequest: Sendable, Equatable {
    /// Whether the filter names only fields the collection lacks in a way no document can pass
    /// (`genres:Drama` on a collection without `genres`): the answer is empty, and Typesense,
    /// which would refuse the unknown field, is not asked.
    public var matchesNothing = false
    /// The query-string parameters, in order (`q`, `query_by`, `filter_by`, `facet_by`, ...).
    public var items: [(name: String, value: String)]
    /// The page asked for (from 0, as in the daemon's parameters).
    public var page: Int
    /// The page size (`per_page`).
    public var hitsPerPage: Int
    /// The words of the query, lowercased (for `matchedWords` and the score's denominator).
    public var queryWords: [String]
    /// The facets asked for (after `facetBy`), in the query's order.
    public var facets: [String]
    /// The most values kept per facet (`max_facet_values`).
    public var maxValuesPerFacet: Int
    /// The searched fields, given a `_highlightResult` entry on every hit.
    public var highlightFields: [String]
    /// The query's `highlightPreTag`, sent as `highlight_start_tag`.
    public var preTag: String
    /// The query's `highlightPostTag`, sent as `highlight_end_tag`.
    public var postTag: String
    /// When the answer stops being useful.
    public var deadline: ContinuousClock.Instant?

    /// Typesense's largest `per_page`.
    public static let maxPerPage = 250

    public static func == (a: TypesenseRequest, b: TypesenseRequest) -> Bool {
        a.items.elementsEqual(b.items) { $0.name == $1.name && $0.value == $1.value } && a.page == b.page
            && a.hitsPerPage == b.hitsPerPage && a.queryWords == b.queryWords && a.facets == b.facets
            && a.maxValuesPerFacet == b.maxValuesPerFacet && a.highlightFields == b.highlightFields
            && a.preTag == b.preTag && a.postTag == b.postTag && a.deadline == b.deadline && a.matchesNothing == b.matchesNothing
    }

    /// The value of one parameter, if present.
    public func value(of name: String) -> String? { items.first { $0.name == name }?.value }

    /// Maps a query: the text (`*` when empty) searched in `queryBy`; the filter translated
    /// by ``TypesenseFilter``; requested facets (and disjunctive facets) that `facetBy` allows
    /// (`*` asks for all of `facetBy`); `page` + 1; `hitsPerPage` as `per_page` (at most 250);
    /// `offset`/`length` when `offset` is a multiple of `length`; highlight tags; retrieved
    /// attributes (always with `id`). `fields`, when known, are the collection's fields: a
    /// filter condition on another matches nothing (see ``FilterExpression/resolved(has:)``).
    public init(query: SearchQuery, config: TypesenseConfig, fields: Set<String>? = nil) throws(SearchError) {
        let p = query.parameters
        var perPage = p.hitsPerPage
        var page = p.page
        if let length = p.length {
            let offset = p.offset ?? 0
            guard length > 0 ? offset % length == 0 : offset == 0 else {
                throw SearchError(.invalidRequest, "offset \(offset) is not a multiple of length \(length) (Typesense pages)")
            }
            perPage = length
            page = length > 0 ? offset / length : 0
        } else if let offset = p.offset {
            guard perPage > 0, offset % perPage == 0 else {
                throw SearchError(.invalidRequest, "offset \(offset) is not a multiple of hitsPerPage \(perPage) (Typesense pages)")
            }
            page = offset / perPage
        }
        guard perPage <= Self.maxPerPage else {
            throw SearchError(.invalidRequest, "hitsPerPage \(perPage) is above Typesense's per_page limit (\(Self.maxPerPage))")
        }
        let text = query.text.trimmingSpaces
        queryWords = text.split(whereSeparator: \.isWhitespace).map { $0.lowercased() }
        self.page = page
        hitsPerPage = perPage
        maxValuesPerFacet = p.maxValuesPerFacet
        preTag = p.highlightPreTag
        postTag = p.highlightPostTag
        deadline = query.deadline
        highlightFields = config.queryBy.filter { p.attributesToHighlight?.contains($0) ?? true }
        facets = Self.facets(requested: p.facets + p.disjunctiveFacets, allowed: config.facetBy)

        var items: [(name: String, value: String)] = [
            ("q", text.isEmpty ? "*" : text),
            ("query_by", config.queryBy.joined(separator: ",")),
        ]
        if let filter = p.filter {
            let resolved = fields.map { known in filter.resolved { $0.attributes.isSubset(of: known) } } ?? .filter(filter)
            switch resolved {
            case .everything: break
            case .nothing: matchesNothing = true
            case .filter(let f): items.append(("filter_by", try TypesenseFilter.translate(f)))
            }
        }
        if !facets.isEmpty {
            items.append(("facet_by", facets.joined(separator: ",")))
            items.append(("max_facet_values", String(p.maxValuesPerFacet)))
        }
        items.append(("page", String(page + 1)))
        items.append(("per_page", String(perPage)))
        if !p.typoTolerance { items.append(("num_typos", "0")) }
        if p.queryType == .prefixNone { items.append(("prefix", "false")) }
        if let fields = Self.retrieved(p.attributesToRetrieve, configured: config.attributes) {
            items.append(("include_fields", fields.joined(separator: ",")))
        }
        if !highlightFields.isEmpty { items.append(("highlight_full_fields", highlightFields.joined(separator: ","))) }
        items.append(("highlight_start_tag", p.highlightPreTag))
        items.append(("highlight_end_tag", p.highlightPostTag))
        self.items = items
    }

    /// Requested facets that `allowed` permits (all with `*`), without duplicates, in order.
    static func facets(requested: [String], allowed: [String]?) -> [String] {
        var out: [String] = []
        for f in requested {
            let names = f == "*" ? (allowed ?? []) : [f]
            for n in names where !out.contains(n) && TypesenseFilter.isFieldName(n) && (allowed?.contains(n) ?? true) {
                out.append(n)
            }
        }
        return out
    }

    /// The fields to ask for: the query's `attributesToRetrieve` within the configured
    /// `attributes`, plus `id`; nil for whole documents.
    static func retrieved(_ requested: [String]?, configured: [String]?) -> [String]? {
        let wanted = requested.flatMap { $0.contains("*") ? nil : $0 }
        var fields: [String]
        switch (wanted, configured) {
        case (nil, nil): return nil
        case (let w?, nil): fields = w
        case (nil, let c?): fields = c
        case (let w?, let c?): fields = w.filter(c.contains)
        }
        fields = fields.filter(TypesenseFilter.isFieldName)
        if !fields.contains("id") { fields.insert("id", at: 0) }
        return fields
    }
}

extension String {
    /// The string without leading and trailing whitespace (no Foundation needed).
    fileprivate var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }
}
