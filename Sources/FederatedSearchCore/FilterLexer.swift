/// A token of the `filters` syntax, with the character offset where it starts.
struct FilterToken: Equatable {
    enum Kind: Equatable {
        case word(String)  // bare word: attribute, value, number, keyword
        case quoted(String)  // "quoted value"
        case colon
        case op(NumericOperator)
        case lparen, rparen
        case end
    }
    var kind: Kind
    var offset: Int
}

/// Splits a filter string into tokens. Offsets count Unicode scalars from 0, as positions
/// in error messages do.
struct FilterLexer {
    static func isBareWordScalar(_ u: Unicode.Scalar) -> Bool {
        if u.properties.isAlphabetic || u.properties.numericType != nil { return true }
        switch u {
        case "_", "-", ".", "+", "/", "@", "#", "&", "'", "*", "$": return true
        default: return false
        }
    }

    static func tokenize(_ text: String) throws(SearchError) -> [FilterToken] {
        let scalars = Array(text.unicodeScalars)
        var tokens: [FilterToken] = []
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            if c.properties.isWhitespace {
                i += 1
                continue
            }
            let start = i
            switch c {
            case "(":
                tokens.append(FilterToken(kind: .lparen, offset: i))
                i += 1
            case ")":
                tokens.append(FilterToken(kind: .rparen, offset: i))
                i += 1
            case ":":
                tokens.append(FilterToken(kind: .colon, offset: i))
                i += 1
            case "<", ">", "=", "!":
                var op = String(c)
                i += 1
                if i < scalars.count, scalars[i] == "=" {
                    op.append("=")
                    i += 1
                }
                guard let parsed = NumericOperator(rawValue: op) else {
                    throw SearchError(.invalidFilter, "position \(start): unknown operator '\(op)', expected one of < <= = != >= >")
                }
                tokens.append(FilterToken(kind: .op(parsed), offset: start))
            case "\"":
                i += 1
                var value = ""
                var closed = false
                while i < scalars.count {
                    let d = scalars[i]
                    if d == "\\", i + 1 < scalars.count {
                        value.unicodeScalars.append(scalars[i + 1])
                        i += 2
                        continue
                    }
                    if d == "\"" {
                        closed = true
                        i += 1
                        break
                    }
                    value.unicodeScalars.append(d)
                    i += 1
                }
                guard closed else {
                    throw SearchError(.invalidFilter, "position \(start): unterminated quoted string")
                }
                tokens.append(FilterToken(kind: .quoted(value), offset: start))
            default:
                guard isBareWordScalar(c) else {
                    throw SearchError(.invalidFilter, "position \(start): unexpected character '\(c)'")
                }
                var word = ""
                while i < scalars.count, isBareWordScalar(scalars[i]) {
                    word.unicodeScalars.append(scalars[i])
                    i += 1
                }
                tokens.append(FilterToken(kind: .word(word), offset: start))
            }
        }
        tokens.append(FilterToken(kind: .end, offset: scalars.count))
        return tokens
    }
}
