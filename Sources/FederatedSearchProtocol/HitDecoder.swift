import FederatedSearchCore

/// Decodes the hits of `results` and `merged` frames at a ``JSONParser`` cursor, checking each
/// as strictly as a full parse would but building only `objectID`, `_rankingScore` and the
/// small annotations: attributes and `_highlightResult` stay runs of the frame's line.
enum HitDecoder {
    /// A hit of a results frame, as its bytes (`{` to `}`) and as decoded: a hit of the merged
    /// list that repeats those bytes is that hit, and they are not checked again.
    struct KnownHit {
        let text: ArraySlice<UInt8>
        let hit: Hit
        /// The index of its results frame, and that name as a JSON string: a merged hit's
        /// `_index` written so is this name, with no string built.
        let index: String
        let quotedIndex: [UInt8]
    }

    /// Known hits by a hash of the JSON text of their `objectID` (quotes included, as
    /// written; ``tokenKey(_:)``): a merged hit is looked up by that text without a string
    /// being built for it, and taken only if all its bytes up to the annotations are the known
    /// hit's, this text among them. Two ids of one hash keep the later hit only; a merged hit
    /// of the other is then decoded in full.
    typealias KnownHits = [UInt64: KnownHit]

    /// FNV-1a of `token`: a key for ``KnownHits`` (hashing an `ArraySlice` goes through the
    /// hasher byte by byte).
    static func tokenKey(_ token: ArraySlice<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in token { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    /// The hits of each request's results frames, by request id and objectID, until the
    /// request ends; and how many of the merged lists' hits were taken from them.
    struct Memory {
        var byRequest: [String: KnownHits] = [:]
        var taken = 0
    }

    /// A search response object (`results` of a results frame); with `known`, its hits are
    /// added to it by objectID.
    static func results(_ p: inout JSONParser, path: String, index: String, known: inout KnownHits?) throws -> SearchResults {
        guard p.peek(UInt8(ascii: "{")) else { throw SearchError(.invalidField, "\(path): expected an object") }
        try p.enterObject()
        var hits: [Hit] = []
        var members = JSONObject()
        let quotedIndex = known == nil ? [] : JSONWriter.bytes(.string(index))
        while let key = try p.nextKey() {
            if key == "hits", p.peek(UInt8(ascii: "[")) {
                hits = try array(&p) { p, i in
                    let h = try hit(&p, path: { "\(path).hits[\(i)]" })
                    // One with merged annotations of its own could decode otherwise in a merged
                    // list (its `_index` would count there): never taken as known.
                    if h.index == nil, h.federation == nil, let token = h.objectIDToken {
                        known?[tokenKey(p.bytes[token])] = KnownHit(
                            text: p.bytes[h.range], hit: h.hit, index: index, quotedIndex: quotedIndex)
                    }
                    return h.hit
                }
            } else {
                members[key] = try p.parseValue()
            }
        }
        return SearchResults(hits: hits, members: members)
    }

    /// The `hits` of a merged frame; a non-array stands for none, as in a tree decode. Hits
    /// that repeat one of `known` are taken from it.
    static func mergedHits(_ p: inout JSONParser, path: String, known: KnownHits?, taken: inout Int) throws -> [MergedHit] {
        guard p.peek(UInt8(ascii: "[")) else {
            try p.skipValue()
            return []
        }
        return try array(&p) { p, i in
            if let known, let repeated = try repeated(&p, known) {
                taken += 1
                return repeated
            }
            let h = try hit(&p, path: { "\(path)[\(i)]" })
            return MergedHit(
                index: h.index ?? "", hit: h.hit, rank: h.federation?["rank"]?.intValue ?? 0,
                weightedScore: h.federation?["weightedScore"]?.numberValue)
        }
    }

    /// A merged hit that begins with the very bytes of a known hit up to its last member (as
    /// the daemon writes it: the source's hit, then `_index` and `_federation`): that hit, with
    /// the merged list's annotations read after those bytes. Nil, with the cursor where it
    /// was, for any other hit: it is then decoded in full.
    private static func repeated(_ p: inout JSONParser, _ known: KnownHits) throws -> MergedHit? {
        let saved = p
        let line = p.bytes
        // `{"objectID":` then the id's string, as the daemon writes a hit.
        let start = p.position
        let prefix = objectIDPrefix
        guard start + prefix.count < p.end, bytesEqual(line[start..<(start + prefix.count)], prefix[...]) else { return nil }
        var probe = JSONParser(bytes: line, range: (start + prefix.count)..<p.end)
        guard probe.peek(UInt8(ascii: "\"")), (try? probe.skipString()) != nil,
            let k = known[tokenKey(line[(start + prefix.count)..<probe.position])], k.text.count >= 2
        else { return nil }
        let resume = start + k.text.count - 1  // where the known hit has its closing brace
        // The known value last before that brace ends there here too (a number could go on).
        guard resume < p.end, line[resume] == UInt8(ascii: ","), bytesEqual(line[start..<resume], k.text.dropLast())
        else { return nil }
        try p.enterObject(resumingAt: resume)
        var index: String?
        var rank = 0
        var weightedScore: Double?
        while let keyRange = try p.nextKeyRange() {
            switch line[keyRange] {
            case let key where bytesEqual(key, indexKey[...]):
                let valueStart = p.position
                try p.skipValue()
                let token = line[valueStart..<p.position]
                if bytesEqual(token, k.quotedIndex[...]) {
                    index = k.index
                } else {
                    var q = JSONParser(bytes: line, range: valueStart..<p.position)
                    index = try q.parseValue().stringValue
                }
            case let key where bytesEqual(key, federationKey[...]):
                // Its members read in place: only the two numbers are built.
                guard p.peek(UInt8(ascii: "{")) else {
                    try p.skipValue()
                    continue
                }
                try p.enterObject()
                while let member = try p.nextKeyRange() {
                    if bytesEqual(line[member], rankKey[...]) {
                        rank = try p.parseValue().intValue ?? 0
                    } else if bytesEqual(line[member], weightedScoreKey[...]) {
                        weightedScore = try p.parseValue().numberValue
                    } else {
                        try p.skipValue()
                    }
                }
            default:
                p = saved  // more than the annotations: decoded in full
                return nil
            }
        }
        return MergedHit(index: index ?? "", hit: k.hit, rank: rank, weightedScore: weightedScore)
    }

    private static let objectIDPrefix = Array(#"{"objectID":"#.utf8)
    private static let indexKey = Array("_index".utf8)
    private static let federationKey = Array("_federation".utf8)
    private static let rankKey = Array("rank".utf8)
    private static let weightedScoreKey = Array("weightedScore".utf8)

    /// The elements of the array at the cursor, each read by `element` with its position.
    private static func array<T>(_ p: inout JSONParser, _ element: (inout JSONParser, Int) throws -> T) throws -> [T] {
        try p.enterArray()
        var out: [T] = []
        while try p.nextElement() { out.append(try element(&p, out.count)) }
        return out
    }

    /// One hit, with the merged list's `_index` and `_federation` when it has them; `path`
    /// names it in errors (built only for one).
    private static func hit(_ p: inout JSONParser, path: () -> String) throws
        -> (hit: Hit, index: String?, federation: JSONObject?, range: Range<Int>, objectIDToken: Range<Int>?)
    {
        guard p.peek(UInt8(ascii: "{")) else { throw SearchError(.invalidField, "\(path()): expected an object") }
        let start = p.position
        try p.enterObject()
        let line = p.bytes
        var objectID: String?
        var objectIDToken: Range<Int>?
        var score = 0.0
        var highlight: JSONText?
        var snippet: JSONObject?
        var rankingInfo: JSONObject?
        var index: String?
        var federation: JSONObject?
        // The attributes as one run of the line (`,"a":1,"b":2`) while they follow each other,
        // as the daemon writes them; copied into `owned` if anything comes between.
        var run: Range<Int>?
        var owned: [UInt8]?
        while let keyRange = try p.nextKeyRange() {
            let keyStart = keyRange.lowerBound - 1  // its opening quote
            if let special = try specialKey(line, keyRange) {
                switch special {
                case .objectID:
                    let valueStart = p.position
                    guard case .string(let s) = try p.parseValue() else {
                        throw SearchError(.invalidField, "\(path()).objectID: expected a string")
                    }
                    objectID = s
                    objectIDToken = valueStart..<p.position
                case .highlightResult:
                    if p.peek(UInt8(ascii: "{")) {
                        let start = p.position
                        try p.skipValue()
                        highlight = JSONText(buffer: line, range: start..<p.position)
                    } else {
                        highlight = nil
                        try p.skipValue()
                    }
                case .rankingScore: score = try p.parseValue().numberValue ?? 0
                case .snippetResult: snippet = try p.parseValue().objectValue
                case .rankingInfo: rankingInfo = try p.parseValue().objectValue
                case .index: index = try p.parseValue().stringValue
                case .federation: federation = try p.parseValue().objectValue
                case .other: try p.skipValue()
                }
                continue
            }
            try p.skipValue()
            let member = keyStart..<p.position
            if owned != nil {
                owned!.append(UInt8(ascii: ","))
                owned!.append(contentsOf: line[member])
            } else if let r = run, member.lowerBound == r.upperBound + 1 {
                run = r.lowerBound..<member.upperBound
            } else if run == nil, keyStart > 0, line[keyStart - 1] == UInt8(ascii: ",") {
                run = (keyStart - 1)..<member.upperBound
            } else {
                var copy = run.map { Array(line[$0]) } ?? []
                copy.append(UInt8(ascii: ","))
                copy.append(contentsOf: line[member])
                owned = copy
            }
        }
        guard let objectID else { throw SearchError(.invalidField, "\(path()).objectID: expected a string") }
        let members = owned.map { JSONText($0) } ?? JSONText(buffer: line, range: run ?? 0..<0)
        let hit = Hit(
            objectID: objectID, attributeMembers: members, highlightResult: highlight, snippetResult: snippet,
            rankingScore: score, rankingInfo: rankingInfo)
        return (hit, index, federation, start..<p.position, objectIDToken)
    }

    /// The members of a hit that are not attributes.
    private enum Special: String, CaseIterable {
        case objectID
        case highlightResult = "_highlightResult"
        case rankingScore = "_rankingScore"
        case snippetResult = "_snippetResult"
        case rankingInfo = "_rankingInfo"
        case index = "_index"
        case federation = "_federation"
        /// Another key starting with `_`: not an attribute, not read.
        case other = "_"

        static let names = allCases.map { ($0, Array($0.rawValue.utf8)) }
    }

    /// Which special member `raw` (the key as written, between its quotes) names, if any.
    private static func specialKey(_ line: [UInt8], _ raw: Range<Int>) throws -> Special? {
        let key = line[raw]
        if key.contains(UInt8(ascii: "\\")) {
            var p = JSONParser(bytes: line, range: (raw.lowerBound - 1)..<(raw.upperBound + 1))
            let name = try p.parseString()
            return Special(rawValue: name) ?? (name.hasPrefix("_") ? .other : nil)
        }
        guard key.first == UInt8(ascii: "_") || key.first == UInt8(ascii: "o") else { return nil }
        for (special, name) in Special.names where key.elementsEqual(name) { return special }
        return key.first == UInt8(ascii: "_") ? .other : nil
    }

}
