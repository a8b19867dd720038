/// Parses Algolia's filter syntax into a ``FilterExpression``.
///
/// Grammar (keywords are upper case, as in Algolia):
///
///     expr      := and ("OR" and)*
///     and       := unary ("AND" unary)*
///     unary     := "NOT" unary | "(" expr ")" | condition
///     condition := attr ":" value            facet, tag (`_tags:x`) or boolean value
///                | attr ":" number "TO" number   inclusive range
///                | attr op number            op in < <= = != >= >
///
/// Errors are `invalid_filter` with the position (in characters from 0) and what was expected.
/// Groups and `NOT`s nest at most ``maxDepth`` deep, so a hostile filter cannot overflow the
/// stack of the recursive descent.
public enum FilterParser {
    /// The deepest nesting of parentheses and `NOT` accepted.
    public static let maxDepth = 128

    /// Parses a `filters` string.
    public static func parse(_ text: String) throws(SearchError) -> FilterExpression {
        var p = Parser(tokens: try FilterLexer.tokenize(text))
        guard p.peek.kind != .end else { throw SearchError(.invalidFilter, "position 0: empty filter") }
        let expr = try p.parseOr()
        guard p.peek.kind == .end else { throw p.unexpected("AND, OR or the end of the filter") }
        return expr
    }

    /// Parses one `numericFilters` item such as `year >= 2000` or `year:1990 TO 1999`.
    public static func parseNumericCondition(_ text: String) throws(SearchError) -> FilterExpression {
        var p = Parser(tokens: try FilterLexer.tokenize(text))
        let expr = try p.parseCondition()
        switch expr {
        case .numeric, .range: break
        default: throw SearchError(.invalidFilter, "position 0: expected a numeric comparison like 'price < 100'")
        }
        guard p.peek.kind == .end else { throw p.unexpected("the end of the numeric filter") }
        return expr
    }

    /// Parses one `facetFilters` item such as `genres:Drama` or `-genres:Drama` (negated).
    public static func parseFacetCondition(_ text: String) throws(SearchError) -> FilterExpression {
        var negated = false
        var body = Substring(text)
        if body.hasPrefix("-") {
            negated = true
            body = body.dropFirst()
        } else if body.hasPrefix("\\-") {
            body = body.dropFirst()
        }
        // Split on the first colon: everything after it is the value, verbatim (values may hold spaces).
        guard let colon = body.firstIndex(of: ":") else {
            throw SearchError(.invalidFilter, "position 0: expected 'attribute:value' in facet filter '\(text)'")
        }
        let attribute = String(body[..<colon]).trimmingSpaces()
        let value = String(body[body.index(after: colon)...]).trimmingSpaces()
        guard !attribute.isEmpty else { throw SearchError(.invalidFilter, "position 0: missing attribute before ':'") }
        let condition: FilterExpression =
            attribute == "_tags" ? .tag(value) : .facet(attribute: attribute, value: value)
        return negated ? .not(condition) : condition
    }

    /// Parses one `tagFilters` item (`tag` or `-tag`).
    public static func parseTagCondition(_ text: String) -> FilterExpression {
        text.hasPrefix("-") ? .not(.tag(String(text.dropFirst()))) : .tag(text)
    }

    private struct Parser {
        let tokens: [FilterToken]
        var index = 0
        /// Parentheses and `NOT`s open around the token being parsed.
        var depth = 0

        var peek: FilterToken { tokens[index] }

        mutating func next() -> FilterToken {
            let t = tokens[index]
            if index < tokens.count - 1 { index += 1 }
            return t
        }

        func describe(_ t: FilterToken) -> String {
            switch t.kind {
            case .word(let w): return "'\(w)'"
            case .quoted(let q): return "\"\(q)\""
            case .colon: return "':'"
            case .op(let o): return "'\(o.rawValue)'"
            case .lparen: return "'('"
            case .rparen: return "')'"
            case .end: return "the end of the filter"
            }
        }

        func unexpected(_ expected: String) -> SearchError {
            SearchError(.invalidFilter, "position \(peek.offset): expected \(expected), found \(describe(peek))")
        }

        func isKeyword(_ t: FilterToken, _ k: String) -> Bool {
            if case .word(let w) = t.kind, w == k { return true }
            return false
        }

        mutating func parseOr() throws(SearchError) -> FilterExpression {
            var parts = [try parseAnd()]
            while isKeyword(peek, "OR") {
                _ = next()
                parts.append(try parseAnd())
            }
            return parts.count == 1 ? parts[0] : .or(parts)
        }

        mutating func parseAnd() throws(SearchError) -> FilterExpression {
            var parts = [try parseUnary()]
            while isKeyword(peek, "AND") {
                _ = next()
                parts.append(try parseUnary())
            }
            return parts.count == 1 ? parts[0] : .and(parts)
        }

        mutating func parseUnary() throws(SearchError) -> FilterExpression {
            if isKeyword(peek, "NOT") {
                try enter()
                _ = next()
                let inner = try parseUnary()
                depth -= 1
                return .not(inner)
            }
            if peek.kind == .lparen {
                try enter()
                _ = next()
                let inner = try parseOr()
                guard peek.kind == .rparen else { throw unexpected("')'") }
                _ = next()
                depth -= 1
                return inner
            }
            return try parseCondition()
        }

        /// Opens one more level of nesting at the current token, refusing past ``FilterParser/maxDepth``.
        mutating func enter() throws(SearchError) {
            depth += 1
            guard depth <= FilterParser.maxDepth else {
                throw SearchError(
                    .invalidFilter, "position \(peek.offset): nesting deeper than \(FilterParser.maxDepth) (parentheses and NOT)")
            }
        }

        mutating func parseCondition() throws(SearchError) -> FilterExpression {
            let attrToken = peek
            let attribute: String
            switch attrToken.kind {
            case .word(let w) where !["AND", "OR", "NOT", "TO"].contains(w): attribute = w
            case .quoted(let q): attribute = q
            default: throw unexpected("an attribute name")
            }
            _ = next()
            switch peek.kind {
            case .op(let op):
                _ = next()
                let value = try parseNumber()
                return .numeric(attribute: attribute, op: op, value: value)
            case .colon:
                _ = next()
                let valueToken = peek
                let valueText: String
                switch valueToken.kind {
                case .word(let w): valueText = w
                case .quoted(let q): valueText = q
                default: throw unexpected("a value after ':'")
                }
                _ = next()
                if isKeyword(peek, "TO") {
                    _ = next()
                    guard case .word = valueToken.kind, let lower = Double(valueText) else {
                        throw SearchError(.invalidFilter, "position \(valueToken.offset): expected a number before TO")
                    }
                    let upper = try parseNumber()
                    return .range(attribute: attribute, lower: lower, upper: upper)
                }
                if attribute == "_tags" { return .tag(valueText) }
                return .facet(attribute: attribute, value: canonicalValue(valueText, quoted: valueToken.kind != .word(valueText)))
            default:
                throw unexpected("':' or a comparison operator after '\(attribute)'")
            }
        }

        /// Unquoted numbers are written the way the JSON writer writes them ("1999.0" → "1999"),
        /// so they match numeric facet values.
        func canonicalValue(_ text: String, quoted: Bool) -> String {
            if !quoted, let d = Double(text), d.isFinite { return FilterExpression.number(d) }
            return text
        }

        mutating func parseNumber() throws(SearchError) -> Double {
            let t = peek
            guard case .word(let w) = t.kind, let d = Double(w), d.isFinite else { throw unexpected("a number") }
            _ = next()
            return d
        }
    }
}

extension String {
    /// The string without leading and trailing spaces.
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
