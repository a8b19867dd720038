import FederatedSearchCore

extension TypesenseResponse {
    /// Parses a search answer, keeping only what ``results(_:request:)`` reads: each hit's
    /// `document`, `highlight` (or, without it, `highlights`) and `text_match`, and the answer's
    /// own members but `request_params`. The rest (`text_match_info`, the older `highlights`
    /// when `highlight` came first, as Typesense sorts its keys) is skipped without being
    /// built, which is about a third of an answer's bytes. The JSON is checked in full all
    /// the same: malformed text anywhere is an error.
    public static func parseAnswer(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        var p = JSONParser(bytes: bytes)
        guard p.peek(UInt8(ascii: "{")) else { return try JSONParser.parse(bytes) }
        try p.enterObject()
        var root = JSONObject()
        while let key = try p.nextKey() {
            switch key {
            case "hits" where p.peek(UInt8(ascii: "[")):
                try p.enterArray()
                var hits: [JSONValue] = []
                while try p.nextElement() { hits.append(try hit(&p)) }
                root[key] = .array(hits)
            case "request_params":
                try p.skipValue()
            default:
                root[key] = try p.parseValue()
            }
        }
        try p.expectEnd()
        return .object(root)
    }

    private static let keptMembers: Set<String> = ["document", "highlight", "text_match"]

    private static func hit(_ p: inout JSONParser) throws(JSONParseError) -> JSONValue {
        guard p.peek(UInt8(ascii: "{")) else { return try p.parseValue() }
        try p.enterObject()
        var hit = JSONObject()
        while let key = try p.nextKey() {
            if keptMembers.contains(key) || (key == "highlights" && hit["highlight"] == nil) {
                hit[key] = try p.parseValue()
            } else {
                try p.skipValue()
            }
        }
        return .object(hit)
    }
}
