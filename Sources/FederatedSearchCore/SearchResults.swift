/// One hit: the retrieved attributes of a document plus the engine's annotations.
public struct Hit: Sendable, Equatable {
    /// The document's unique id.
    public var objectID: String
    /// The retrieved attributes (without `objectID`, which is written first).
    ///
    /// An engine may hand over the whole stored document with its attributes already encoded
    /// (``encodedAttributes``); reading this property then copies the document without
    /// `objectID` (``attribute(_:)`` reads one value without a copy), and setting it replaces
    /// both.
    public var attributes: JSONObject {
        get {
            switch attributeStorage {
            case .tree(let o): return o
            case .document(let d, _):
                var o = d
                o["objectID"] = nil
                return o
            case .members(let text):
                var p = text.parser()
                return (try? p.parseMemberList()) ?? JSONObject()
            }
        }
        set { attributeStorage = .tree(newValue) }
    }
    /// Algolia's `_highlightResult`: per attribute, `value`, `matchLevel`, `matchedWords`, ...
    ///
    /// An engine may hand it over already encoded (``encodedHighlightResult``); reading this
    /// property then parses those bytes, and setting it replaces them.
    public var highlightResult: JSONObject? {
        get {
            switch highlight {
            case nil: return nil
            case .tree(let o)?: return o
            case .encoded(let text)?:
                // Checked JSON (written by this process, or checked as a frame was decoded); its
                // highlights nest two levels deeper than the document, so the parse allows more
                // than requests do.
                var p = text.parser(maxDepth: 1024)
                return (try? p.parseValue())?.objectValue ?? JSONObject()
            }
        }
        set { highlight = newValue.map { .tree($0) } }
    }
    /// Algolia's `_snippetResult`.
    public var snippetResult: JSONObject?
    /// A relevance score in [0, 1], comparable across indices (the merge orders by it).
    public var rankingScore: Double
    /// Algolia's `_rankingInfo`, when asked for.
    public var rankingInfo: JSONObject?

    /// The attributes as a tree, or as a stored document (which may hold `objectID`) with the
    /// JSON members of its attributes.
    private enum Attributes: Sendable {
        case tree(JSONObject)
        case document(JSONObject, encoded: [UInt8])
        /// Only the members' checked JSON text, parsed when read (a hit decoded from a frame).
        case members(JSONText)
    }

    private var attributeStorage: Attributes

    /// The attributes as JSON members without braces (`,"title":"...","year":1977`, exactly
    /// what ``JSONWriter`` writes for each member of ``attributes``), when the engine gave them
    /// so: frame writers copy them as they are.
    public var encodedAttributes: ArraySlice<UInt8>? {
        switch attributeStorage {
        case .tree: return nil
        case .document(_, let encoded): return encoded[...]
        case .members(let text): return text.bytes
        }
    }

    /// The value of attribute `name` (never `objectID`), without copying or parsing the others.
    public func attribute(_ name: String) -> JSONValue? {
        switch attributeStorage {
        case .tree(let o): return o[name]
        case .document(let d, _): return name == "objectID" ? nil : d[name]
        case .members(let text):
            var p = text.parser()
            return p.member(name, listed: true)
        }
    }

    /// `_highlightResult[attribute]` (its `value`, `matchLevel`, ...), without parsing the
    /// other attributes' highlights.
    public func highlightResult(for attribute: String) -> JSONValue? {
        switch highlight {
        case nil: return nil
        case .tree(let o)?: return o[attribute]
        case .encoded(let text)?:
            var p = text.parser(maxDepth: 1024)
            return p.member(attribute)
        }
    }

    /// `_highlightResult` as a tree, or as checked JSON text of one.
    private enum Highlight: Sendable {
        case tree(JSONObject)
        case encoded(JSONText)
    }

    private var highlight: Highlight?

    /// `_highlightResult` as JSON text (compact, as ``JSONWriter`` writes it, when the engine
    /// produced it; as the daemon sent it, for a hit decoded from a frame): frame writers copy
    /// it as it is instead of building and walking a tree per hit.
    public var encodedHighlightResult: ArraySlice<UInt8>? {
        if case .encoded(let text)? = highlight { return text.bytes }
        return nil
    }

    public init(
        objectID: String, attributes: JSONObject, highlightResult: JSONObject? = nil,
        snippetResult: JSONObject? = nil, rankingScore: Double, rankingInfo: JSONObject? = nil
    ) {
        self.objectID = objectID
        self.attributeStorage = .tree(attributes)
        self.highlight = highlightResult.map { .tree($0) }
        self.snippetResult = snippetResult
        self.rankingScore = rankingScore
        self.rankingInfo = rankingInfo
    }

    /// A hit whose `_highlightResult` is given as compact JSON text of an object, as
    /// ``JSONWriter`` would write it (the caller guarantees both).
    public init(
        objectID: String, attributes: JSONObject, encodedHighlightResult: [UInt8],
        snippetResult: JSONObject? = nil, rankingScore: Double, rankingInfo: JSONObject? = nil
    ) {
        self.objectID = objectID
        self.attributeStorage = .tree(attributes)
        self.highlight = .encoded(JSONText(encodedHighlightResult))
        self.snippetResult = snippetResult
        self.rankingScore = rankingScore
        self.rankingInfo = rankingInfo
    }

    /// A hit of a stored `document` (which may hold `objectID`) whose attributes are all
    /// retrieved, given with their JSON members as ``encodedAttributes`` describes, and whose
    /// `_highlightResult` is compact JSON text (the caller guarantees both encodings).
    public init(
        objectID: String, document: JSONObject, encodedAttributes: [UInt8], encodedHighlightResult: [UInt8],
        snippetResult: JSONObject? = nil, rankingScore: Double, rankingInfo: JSONObject? = nil
    ) {
        self.objectID = objectID
        self.attributeStorage = .document(document, encoded: encodedAttributes)
        self.highlight = .encoded(JSONText(encodedHighlightResult))
        self.snippetResult = snippetResult
        self.rankingScore = rankingScore
        self.rankingInfo = rankingInfo
    }

    /// A hit whose attributes are given as a member list (`,"title":"...","year":1977`) and
    /// whose `_highlightResult`, if any, as the text of an object, both already checked as
    /// JSON (the caller guarantees it): a frame decoder hands over parts of the frame's line
    /// this way, and they are parsed only when read.
    public init(
        objectID: String, attributeMembers: JSONText, highlightResult: JSONText?,
        snippetResult: JSONObject? = nil, rankingScore: Double, rankingInfo: JSONObject? = nil
    ) {
        self.objectID = objectID
        self.attributeStorage = .members(attributeMembers)
        self.highlight = highlightResult.map { .encoded($0) }
        self.snippetResult = snippetResult
        self.rankingScore = rankingScore
        self.rankingInfo = rankingInfo
    }

    /// Equal when every field is, whatever form the attributes and highlights are held in.
    public static func == (a: Hit, b: Hit) -> Bool {
        a.objectID == b.objectID && a.attributes == b.attributes && a.rankingScore == b.rankingScore
            && a.snippetResult == b.snippetResult && a.rankingInfo == b.rankingInfo
            && a.highlightResult == b.highlightResult
    }
}

/// The counts of one facet's values, most frequent first.
public struct FacetCounts: Sendable, Equatable {
    public var attribute: String
    /// Values with their number of matching documents, in display order.
    public var values: [(value: String, count: Int)]

    public init(attribute: String, values: [(value: String, count: Int)]) {
        self.attribute = attribute
        self.values = values
    }

    public static func == (a: FacetCounts, b: FacetCounts) -> Bool {
        a.attribute == b.attribute && a.values.elementsEqual(b.values) { $0.value == $1.value && $0.count == $1.count }
    }
}

/// Statistics of a numeric facet over all matches.
public struct FacetStats: Sendable, Equatable {
    public var attribute: String
    public var min: Double
    public var max: Double
    public var avg: Double
    public var sum: Double

    public init(attribute: String, min: Double, max: Double, avg: Double, sum: Double) {
        self.attribute = attribute
        self.min = min
        self.max = max
        self.avg = avg
        self.sum = sum
    }
}

/// A searchable's answer, in the shape of an Algolia search response so that every client
/// understands every backend.
public struct SearchResults: Sendable, Equatable {
    public var hits: [Hit]
    /// The number of documents that match (not only those on the page).
    public var nbHits: Int
    public var page: Int
    public var nbPages: Int
    public var hitsPerPage: Int
    /// Facet counts over all matches, in the order the facets were requested.
    public var facets: [FacetCounts]
    /// Numeric facet statistics.
    public var facetsStats: [FacetStats]
    /// Whether `nbHits` and facet counts are exact.
    public var exhaustiveNbHits: Bool
    public var processingTimeMS: Double
    /// The query text.
    public var query: String
    /// The parameters, URL-encoded as Algolia echoes them.
    public var params: String
    /// The index that answered.
    public var index: String

    public init(
        hits: [Hit] = [], nbHits: Int = 0, page: Int = 0, nbPages: Int = 0, hitsPerPage: Int = 20,
        facets: [FacetCounts] = [], facetsStats: [FacetStats] = [], exhaustiveNbHits: Bool = true,
        processingTimeMS: Double = 0, query: String = "", params: String = "", index: String = ""
    ) {
        self.hits = hits
        self.nbHits = nbHits
        self.page = page
        self.nbPages = nbPages
        self.hitsPerPage = hitsPerPage
        self.facets = facets
        self.facetsStats = facetsStats
        self.exhaustiveNbHits = exhaustiveNbHits
        self.processingTimeMS = processingTimeMS
        self.query = query
        self.params = params
        self.index = index
    }
}
