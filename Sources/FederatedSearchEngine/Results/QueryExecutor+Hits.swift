import FederatedSearchCore

extension QueryExecutor {
    /// The page's hits: retrieved attributes, highlights, snippets, score and ranking info.
    /// Throws `answer_too_large` as soon as the encoded attributes and highlights built so far
    /// pass the query's ``SearchQuery/answerByteLimit``, before it builds the rest.
    func buildHits(_ ranked: RankedPage, match m: TextMatch, parsed: ParsedQuery) throws(SearchError) -> [Hit] {
        let p = parameters
        // A query over one index alone scores its own documents; a segmented one is given the
        // scores of all its segments.
        let localScores = p.getRankingInfo && userScores == nil ? UserScores([(index, live)]) : UserScores([])
        let highlighter = Highlighter(
            analyzer: index.analyzer,
            matcher: HighlightMatcher(words: parsed.words, index: index, typos: typoMode != .disabled),
            preTag: Array(p.highlightPreTag.utf8), postTag: Array(p.highlightPostTag.utf8),
            ellipsis: p.snippetEllipsisText)
        // Each attribute once (a name listed twice would write a duplicate key).
        var listed = Set<String>()
        let highlightPaths = (p.attributesToHighlight ?? index.text.slots.map(\.name))
            .filter { listed.insert($0).inserted }.map(AttributePath.init)
        let snippets: [(path: AttributePath, words: Int)] = (p.attributesToSnippet ?? []).map { spec in
            if let colon = spec.lastIndex(of: ":"), let n = Int(spec[spec.index(after: colon)...]) {
                return (AttributePath(String(spec[..<colon])), n)
            }
            return (AttributePath(spec), 10)
        }
        let unretrievable = Set(index.settings.unretrievableAttributes)
        let width = ranked.ranker.words.count
        // Searchable attributes are highlighted from the terms the forward index shows the
        // document holds (see HighlightCandidates); other attributes word by word.
        var slotOfName: [String: Int] = [:]
        for (i, slot) in index.text.slots.enumerated() where slotOfName[slot.name] == nil { slotOfName[slot.name] = i }
        let fast = fastHighlight && !ranked.docs.isEmpty && highlightPaths.contains { slotOfName[$0.name] != nil }
        let candidates =
            fast
            ? HighlightCandidates(words: parsed.words, termSpans: m.termSpans, index: index, typos: typoMode != .disabled)
            : nil
        let dictionary = index.text.dictionary
        // Every attribute retrieved (the default): hits carry the stored documents.
        let retrievesAll =
            unretrievable.isEmpty
            && (p.attributesToRetrieve == nil || p.attributesToRetrieve == ["*"])
        var terms: [ArraySlice<UInt8>] = []  // one attribute's candidate terms, reused
        var slotTerms: [[Int]] = []  // a hit's candidate terms per slot, reused
        var lastPosition: [Int] = []
        // What each highlighted attribute needs, worked out once per query rather than per
        // hit (hashing its name for the slot and the unretrievable set, writing its key):
        // unless `*` lists each document's own keys.
        func describe(_ path: AttributePath) -> HighlightedAttribute {
            HighlightedAttribute(path, slot: slotOfName[path.name], skip: unretrievable.contains(path.name))
        }
        let plan: [HighlightedAttribute]? = highlightPaths.contains { $0.name == "*" } ? nil : highlightPaths.map(describe)
        /// Hit `row` of the page.
        func buildHit(_ row: Int) -> Hit {
            let doc = ranked.docs[row]
            let document = index.documents[Int(doc)]
            // `_highlightResult` is written straight to its JSON text (see Hit.encodedHighlightResult).
            var highlight: [UInt8] = []
            // The highlights repeat the attributes' text with tags and match levels: the
            // document's size is a good first guess (its JSON when cached).
            let cached = retrievesAll ? index.encodedAttributes.members(of: Int(doc), document) : nil
            highlight.reserveCapacity((cached?.count ?? 64) + 96 * highlightPaths.count)
            highlight.append(UInt8(ascii: "{"))
            var slotTermsRead = false
            for attribute in plan ?? expand(highlightPaths, document).map(describe) {
                if attribute.skip { continue }
                guard let v = attribute.path.value(in: document) else { continue }
                let mark = highlight.count
                if mark > 1 { highlight.append(UInt8(ascii: ",")) }
                highlight.append(contentsOf: attribute.key)
                if let candidates, let slot = attribute.slot {
                    if !slotTermsRead {
                        candidates.terms(of: doc, into: &slotTerms, lastPosition: &lastPosition)
                        slotTermsRead = true
                    }
                    terms.removeAll(keepingCapacity: true)
                    for id in slotTerms[slot] { terms.append(dictionary.term(id)) }
                    // A lone string's words are at positions 0, 1, ...: its scan can stop at the
                    // last candidate (word counts are capped at 65535: beyond, scan it whole).
                    var through: (last: Int, words: Int)? = nil
                    let words = Int(index.text.fieldLength[Int(doc) * index.text.slots.count + slot])
                    if case .string = v, words < Int(UInt16.max) { through = (lastPosition[slot], words) }
                    if !highlighter.write(v, candidates: terms, through: through, into: &highlight) {
                        highlight.removeSubrange(mark...)
                    }
                } else if let h = highlighter.highlight(v) {
                    JSONWriter.write(h, into: &highlight)
                } else {
                    highlight.removeSubrange(mark...)
                }
            }
            highlight.append(UInt8(ascii: "}"))
            var snippet = JSONObject()
            for s in snippets {
                for path in expand([s.path], document) where !unretrievable.contains(path.name) {
                    if let v = path.value(in: document), let h = highlighter.snippet(v, words: s.words) {
                        snippet.appendUnchecked(path.name, h)
                    }
                }
            }
            let measures = ranked.ranker.measures(doc: doc, hits: ranked.hits, base: row * width)
            let score = ranked.ranker.score(measures)
            let info = p.getRankingInfo ? rankingInfo(measures, doc: doc, userScores: userScores ?? localScores) : nil
            if retrievesAll {
                // The stored document as it is, with its attributes' JSON cached by the snapshot.
                return Hit(
                    objectID: index.objectIDs[Int(doc)], document: document,
                    encodedAttributes: cached ?? index.encodedAttributes.members(of: Int(doc), document),
                    encodedHighlightResult: highlight, snippetResult: snippets.isEmpty ? nil : snippet,
                    rankingScore: score, rankingInfo: info)
            }
            return Hit(
                objectID: index.objectIDs[Int(doc)], attributes: retrieve(document, unretrievable: unretrievable),
                encodedHighlightResult: highlight, snippetResult: snippets.isEmpty ? nil : snippet,
                rankingScore: score, rankingInfo: info)
        }

        var bytes = 0  // the page's attributes (as encoded) and highlights so far
        let limit = query.answerByteLimit ?? Int.max
        var hits: [Hit] = []
        hits.reserveCapacity(ranked.docs.count)
        for row in ranked.docs.indices {
            let hit = buildHit(row)
            bytes += (hit.encodedAttributes?.count ?? 0) + (hit.encodedHighlightResult?.count ?? 0)
            if bytes > limit {
                throw Self.answerTooLarge(name, hits: row + 1, of: ranked.docs.count, limit: limit)
            }
            hits.append(hit)
        }
        return hits
    }

    /// The error of a page whose first `hits` of `of` hits already pass the answer limit.
    static func answerTooLarge(_ name: String, hits: Int, of count: Int, limit: Int) -> SearchError {
        SearchError(
            .answerTooLarge,
            "\(name): \(hits) of its \(count) hits already pass limits.maxAnswerBytes (\(limit) bytes); ask for fewer hits (hitsPerPage) or attributes (attributesToRetrieve, attributesToHighlight)"
        )
    }

    /// An attribute to highlight: its path, its key as JSON (`"name":`), its text slot when it
    /// is searchable, and whether it is unretrievable (then it is left out).
    struct HighlightedAttribute {
        let path: AttributePath
        let key: [UInt8]
        let slot: Int?
        let skip: Bool

        init(_ path: AttributePath, slot: Int?, skip: Bool) {
            self.path = path
            var key: [UInt8] = []
            JSONWriter.writeString(path.name, into: &key)
            key.append(UInt8(ascii: ":"))
            self.key = key
            self.slot = slot
            self.skip = skip
        }
    }

    /// `*` stands for every top-level attribute of the document.
    private func expand(_ paths: [AttributePath], _ document: JSONObject) -> [AttributePath] {
        guard paths.contains(where: { $0.name == "*" }) else { return paths }
        return document.keys.filter { $0 != "objectID" }.map(AttributePath.init)
    }

    /// The attributes of `attributesToRetrieve` (`*` or nil: all; `-attr` with `*` excludes).
    func retrieve(_ document: JSONObject, unretrievable: Set<String>) -> JSONObject {
        let wanted = parameters.attributesToRetrieve
        let all = wanted == nil || wanted!.contains("*")
        let excluded = Set((wanted ?? []).filter { $0.hasPrefix("-") }.map { String($0.dropFirst()) })
        if all && excluded.isEmpty && unretrievable.isEmpty {
            // Everything but objectID (which every hit carries on its own).
            var out = document
            out["objectID"] = nil
            return out
        }
        let listed = Set(wanted ?? [])
        var out = JSONObject(capacity: document.count)
        for e in document.entries where e.key != "objectID" && !unretrievable.contains(e.key) {
            if all ? !excluded.contains(e.key) : listed.contains(e.key) { out.appendUnchecked(e.key, e.value) }
        }
        if !all {  // nested paths (`author.name`) come as their own keys
            for name in wanted! where name.contains(".") && document[name] == nil && !unretrievable.contains(name) {
                if let v = AttributePath(name).value(in: document) { out.appendUnchecked(name, v) }
            }
        }
        return out
    }

    func rankingInfo(_ m: HitMeasures, doc: UInt32, userScores: UserScores) -> JSONObject {
        var o = JSONObject()
        o.appendUnchecked("nbTypos", .number(Double(m.typos)))
        o.appendUnchecked("firstMatchedWord", .number(Double(m.firstMatchedWord)))
        o.appendUnchecked("proximityDistance", .number(Double(m.proximity)))
        o.appendUnchecked("userScore", .number(Double(userScores.score(segment: segmentInScores, doc: doc))))
        o.appendUnchecked("geoDistance", .number(m.geoDistance.map { ($0).rounded() } ?? 0))
        o.appendUnchecked("geoPrecision", .number(1))
        o.appendUnchecked("nbExactWords", .number(Double(m.exactWords)))
        o.appendUnchecked("words", .number(Double(m.matchedWords)))
        o.appendUnchecked("filters", .number(0))
        o.appendUnchecked("bm25", .number((m.bm25 * 1000).rounded() / 1000))
        return o
    }
}
