import Foundation
import FederatedSearchCore

extension IndexSettings {
    /// Decodes settings from a config object; `path` names it in errors
    /// (`searchables.movies.customRanking[0]: expected asc(attribute) or desc(attribute), ...`).
    public static func decode(_ object: JSONObject, path: String) throws(SearchError) -> IndexSettings {
        var s = IndexSettings()
        var r = FieldReader(object, path: path)
        for key in [
            "searchableAttributes", "attributesForFaceting", "customRanking", "ranking", "unretrievableAttributes",
            "numericAttributesForFiltering", "queryLanguages",
        ] {
            if case .array(let items)? = object[key] { try bound(items.count, Limits.attributes, path: r.path(of: key), of: "entries") }
        }
        if case .array(let items)? = object["stopWords"] {
            try bound(items.count, Limits.stopWords, path: r.path(of: "stopWords"), of: "words")
        }
        if let list = try r.stringArray("searchableAttributes") {
            s.searchableAttributes = try parseSearchable(list, path: r.path(of: "searchableAttributes"))
        }
        if let list = try r.stringArray("attributesForFaceting") {
            s.attributesForFaceting = try list.enumerated().map { (i, x) throws(SearchError) in
                try parseFaceting(x, path: "\(r.path(of: "attributesForFaceting"))[\(i)]")
            }
        }
        if let list = try r.stringArray("numericAttributesForFiltering") {
            s.numericAttributesForFiltering = list.map { entry in
                entry.hasPrefix("equalOnly(") && entry.hasSuffix(")") ? String(entry.dropFirst("equalOnly(".count).dropLast()) : entry
            }
        }
        if let list = try r.stringArray("customRanking") {
            s.customRanking = try list.enumerated().map { (i, x) throws(SearchError) in
                try CustomRankingCriterion.parse(x, path: "\(r.path(of: "customRanking"))[\(i)]")
            }
        }
        if let list = try r.stringArray("ranking") {
            s.ranking = try list.enumerated().map { (i, x) throws(SearchError) in
                try RankingRule.parse(x, path: "\(r.path(of: "ranking"))[\(i)]")
            }
        }
        if let v = try r.string("separatorsToIndex") { s.separatorsToIndex = v }
        if let v = r.value("removeStopWords") {
            switch v {
            case .bool(let b): s.stopWords = b ? StopWords.english : []
            case .array:
                _ = try r.stringArray("removeStopWords")
                s.stopWords = StopWords.english
            default:
                throw SearchError(
                    .invalidField, "\(r.path(of: "removeStopWords")): expected a boolean or an array of language codes, got \(v.typeName)")
            }
        }
        if let v = try r.stringArray("stopWords") { s.stopWords += v }
        if let v = r.value("ignorePlurals") {
            switch v {
            case .bool(let b): s.ignorePlurals = b
            case .array:
                let langs = try r.stringArray("ignorePlurals") ?? []
                s.ignorePlurals = langs.contains("en")
            default:
                throw SearchError(
                    .invalidField, "\(r.path(of: "ignorePlurals")): expected a boolean or an array of language codes, got \(v.typeName)")
            }
        }
        if let v = try r.stringArray("queryLanguages") { s.queryLanguages = v }
        if let v = try r.int("minWordSizefor1Typo", in: 1...100) { s.minWordSizefor1Typo = v }
        if let v = try r.int("minWordSizefor2Typos", in: 1...100) { s.minWordSizefor2Typos = v }
        if let v = r.value("typoTolerance") {
            s.typoTolerance = try decodeTypoTolerance(v, path: r.path(of: "typoTolerance"))
        }
        if let v = r.value("synonyms") { s.synonyms = try decodeSynonyms(v, path: r.path(of: "synonyms")) }
        if let v = try r.string("attributeForDistinct") { s.attributeForDistinct = v }
        if let v = r.value("distinct") { s.distinct = try decodeDistinct(v, path: r.path(of: "distinct")) }
        if let v = try r.int("paginationLimitedTo", in: 1...1_000_000) { s.paginationLimitedTo = v }
        if let v = try r.stringArray("unretrievableAttributes") { s.unretrievableAttributes = v }
        if let bm25 = try r.objectValue("bm25") {
            var b = FieldReader(bm25, path: r.path(of: "bm25"))
            // Outside these ranges a score can go negative or NaN (k1 = -1 divides 0 by 0).
            if let k1 = try b.number("k1") {
                guard (0...100).contains(k1) else {
                    throw SearchError(.invalidField, "\(b.path(of: "k1")): \(k1) is out of range 0...100")
                }
                s.bm25K1 = k1
            }
            if let bb = try b.number("b") {
                guard (0...1).contains(bb) else {
                    throw SearchError(.invalidField, "\(b.path(of: "b")): \(bb) is out of range 0...1")
                }
                s.bm25B = bb
            }
            try b.rejectUnknownKeys()
        }
        for name in AlgoliaSettingNames.queryDefaults {
            if let v = r.value(name) { s.queryDefaults[name] = v }
        }
        if !s.queryDefaults.isEmpty { _ = try SearchParameters.decode(s.queryDefaults, path: path) }
        for name in AlgoliaSettingNames.storedOnly { _ = r.value(name) }
        try r.rejectUnknownKeys()
        return s
    }

    static func parseSearchable(_ list: [String], path: String) throws(SearchError) -> [SearchableAttribute] {
        var out: [SearchableAttribute] = []
        for (i, entry) in list.enumerated() {
            for part in entry.split(separator: ",") {
                var name = part.trimmingCharacters(in: .whitespaces)
                var unordered = false
                if name.hasPrefix("unordered(") && name.hasSuffix(")") {
                    name = String(name.dropFirst("unordered(".count).dropLast())
                    unordered = true
                } else if name.hasPrefix("ordered(") && name.hasSuffix(")") {
                    name = String(name.dropFirst("ordered(".count).dropLast())
                }
                guard !name.isEmpty, !name.contains("(") else {
                    throw SearchError(.invalidField, "\(path)[\(i)]: invalid attribute '\(entry)'")
                }
                out.append(SearchableAttribute(name: name, priority: i, unordered: unordered))
            }
        }
        return out
    }

    static func parseFaceting(_ entry: String, path: String) throws(SearchError) -> FacetingAttribute {
        for (prefix, mode) in [
            ("searchable(", FacetingAttribute.Mode.searchable), ("filterOnly(", .filterOnly),
            ("afterDistinct(", .normal),
        ]
        where entry.hasPrefix(prefix) && entry.hasSuffix(")") {
            let name = String(entry.dropFirst(prefix.count).dropLast())
            guard !name.isEmpty else { throw SearchError(.invalidField, "\(path): empty attribute in '\(entry)'") }
            return FacetingAttribute(name: name, mode: mode)
        }
        guard !entry.isEmpty, !entry.contains("(") else {
            throw SearchError(.invalidField, "\(path): invalid faceting attribute '\(entry)'")
        }
        return FacetingAttribute(name: entry, mode: .normal)
    }

    /// `true`, `false`, `"min"`, `"strict"` (also `"true"`/`"false"` as strings).
    public static func decodeTypoTolerance(_ v: JSONValue, path: String) throws(SearchError) -> TypoTolerance {
        switch v {
        case .bool(let b): return b ? .enabled : .disabled
        case .string(let s):
            guard let t = TypoTolerance(rawValue: s) else {
                throw SearchError(.invalidField, "\(path): expected true, false, \"min\" or \"strict\", got '\(s)'")
            }
            return t
        default:
            throw SearchError(.invalidField, "\(path): expected a boolean or a string, got \(v.typeName)")
        }
    }

    /// `true` (1), `false` (0) or a count.
    static func decodeDistinct(_ v: JSONValue, path: String) throws(SearchError) -> Int {
        if case .bool(let b) = v { return b ? 1 : 0 }
        guard let n = v.intValue, (0...100).contains(n) else {
            throw SearchError(.invalidField, "\(path): expected a boolean or an integer in 0...100, got \(v.typeName)")
        }
        return n
    }

    /// Algolia's synonym objects (`{"type": "synonym", "synonyms": [...]}`,
    /// `{"type": "oneWaySynonym", "input": "...", "synonyms": [...]}`) or plain arrays of words.
    static func decodeSynonyms(_ v: JSONValue, path: String) throws(SearchError) -> [Synonym] {
        guard case .array(let items) = v else {
            throw SearchError(.invalidField, "\(path): expected an array, got \(v.typeName)")
        }
        try bound(items.count, Limits.synonyms, path: path, of: "synonyms")
        var out: [Synonym] = []
        var words = 0
        for (i, item) in items.enumerated() {
            let itemPath = "\(path)[\(i)]"
            switch item {
            case .array:
                var r = FieldReader(JSONObject([("words", item)]), path: path)
                let words = try r.stringArray("words") ?? []
                out.append(Synonym(synonyms: words))
            case .object(let o):
                var r = FieldReader(o, path: itemPath)
                _ = try r.string("objectID")
                let type = try r.string("type") ?? "synonym"
                let words = try r.stringArray("synonyms") ?? []
                switch type {
                case "synonym":
                    out.append(Synonym(synonyms: words))
                case "oneWaySynonym":
                    out.append(Synonym(input: try r.requiredString("input"), synonyms: words))
                default:
                    throw SearchError(.invalidField, "\(r.path(of: "type")): expected synonym or oneWaySynonym, got '\(type)'")
                }
                try r.rejectUnknownKeys()
            default:
                throw SearchError(.invalidField, "\(itemPath): expected an object or an array of strings, got \(item.typeName)")
            }
            try bound(out[out.count - 1].synonyms.count, Limits.wordsPerSynonym, path: itemPath, of: "words")
            words += out[out.count - 1].synonyms.count
            try bound(words, Limits.synonymWords, path: path, of: "words in all")
        }
        return out
    }

    /// The most entries a settings collection takes (docs/HTTP.md lists them): past them,
    /// building an index's structures would stall its writer and every search of it.
    public enum Limits {
        /// Synonym objects, words in one of them, and words in all of them.
        public static let synonyms = 10_000
        public static let wordsPerSynonym = 1_000
        public static let synonymWords = 100_000
        /// Stop words.
        public static let stopWords = 10_000
        /// Every other list (searchable, faceting, ranking, custom ranking, unretrievable and
        /// numeric attributes, query languages).
        public static let attributes = 1_000
    }

    static func bound(_ count: Int, _ limit: Int, path: String, of what: String) throws(SearchError) {
        guard count <= limit else { throw SearchError(.invalidField, "\(path): \(count) \(what); at most \(limit)") }
    }
}
