/// Numbers: JSON's grammar checked, and each value read as the nearest double, with integer
/// fast paths for the common shapes (integers, and decimals of up to 18 digits with no
/// exponent) and `strtod`'s conversion for the rest.
extension JSONParser {
    /// The number at the cursor (on its first character), moving past it: checked as JSON's
    /// grammar says, and correctly rounded.
    mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = pos
        let integral = try scanNumber()
        if integral, pos - start <= 15 {
            var v: Int64 = 0
            var i = start
            let negative = bytes[i] == UInt8(ascii: "-")
            if negative { i += 1 }
            while i < pos {
                v = v * 10 + Int64(bytes[i] - UInt8(ascii: "0"))
                i += 1
            }
            return negative ? -Double(v) : Double(v)  // `-0` is negative zero
        }
        if let exact = exactDecimal(start..<pos) { return exact }
        let text = String(decoding: bytes[start..<pos], as: UTF8.self)
        guard let d = Double(text), d.isFinite else {
            throw JSONParseError(offset: start, reason: "number out of range")
        }
        return d
    }

    /// A number written with a fraction and no exponent (`-0.9125`, `0.8502273857722932`),
    /// or an integer of 16 to 18 digits, correctly rounded, when it has at most 18 digits and its
    /// fraction at most 19 (nil for any other number, which `strtod` then reads):
    /// - with at most 15 digits, the digits as an integer and the power of ten are both exact
    ///   doubles, and their quotient is the correctly rounded value (Clinger's fast path);
    /// - with 16 to 18 (the scores the daemon writes have 16 or 17), by exact integer
    ///   division (``roundedQuotient(_:_:)``);
    /// - an integer, by the conversion of the integer, which rounds to nearest.
    private func exactDecimal(_ range: Range<Int>) -> Double? {
        var i = range.lowerBound
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa: Int64 = 0
        var digits = 0
        var fraction = -1
        while i < range.upperBound {
            let b = bytes[i]
            if b == UInt8(ascii: ".") {
                fraction = 0
            } else if isDigit(b) {
                mantissa = mantissa &* 10 &+ Int64(b - UInt8(ascii: "0"))
                digits += 1
                if fraction >= 0 { fraction += 1 }
                if digits > 18 { return nil }  // 18 digits and less fit an Int64
            } else {
                return nil  // an exponent
            }
            i += 1
        }
        guard fraction >= 0 else { return negative ? -Double(mantissa) : Double(mantissa) }
        let value: Double
        if digits <= 15, fraction <= 22 {
            value = Double(mantissa) / Self.powersOfTen[fraction]
        } else if fraction <= 19 {
            value = Self.roundedQuotient(UInt64(mantissa), fraction)
        } else {
            return nil
        }
        return negative ? -value : value
    }

    /// `m / 10^f` rounded to the nearest double (ties to even), for `m < 2^63` and `f <= 19`,
    /// by integer arithmetic: the quotient is taken with at least 54 significant bits, and the
    /// bits dropped to keep 53, with the remainder, decide the rounding. Exact for every such
    /// input whose value is a normal double (all of them: at least 10^-19).
    static func roundedQuotient(_ m: UInt64, _ f: Int) -> Double {
        guard m != 0 else { return 0 }
        let divisor = UInt128(Self.integerPowersOfTen[f])
        let divisorBits = 128 - divisor.leadingZeroBitCount
        let mantissaBits = 64 - m.leadingZeroBitCount
        // Shifted so that the quotient has 54 bits or more (it fits: m << s < 2^118).
        let shift = max(0, 54 + divisorBits - mantissaBits)
        let (quotient, remainder) = (UInt128(m) << shift).quotientAndRemainder(dividingBy: divisor)
        let dropped = (128 - quotient.leadingZeroBitCount) - 53
        var kept = quotient >> dropped
        let rest = quotient & ((1 << dropped) - 1)
        let half = UInt128(1) << (dropped - 1)
        if rest > half || (rest == half && (remainder != 0 || kept & 1 == 1)) { kept += 1 }
        // kept <= 2^53 is exact as a double, and scaling by a power of two is exact.
        return Double(UInt64(kept)) * Double(sign: .plus, exponent: dropped - shift, significand: 1)
    }

    private static let integerPowersOfTen: [UInt64] = (0...19).map { k in (0..<k).reduce(1) { x, _ in x * 10 } }

    private static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { x, _ in x * 10 } }

    /// Moves past a number, checking its grammar; whether it has no fraction or exponent.
    mutating func scanNumber() throws(JSONParseError) -> Bool {
        if bytes[pos] == UInt8(ascii: "-") { pos += 1 }
        guard pos < end, isDigit(bytes[pos]) else { throw error("invalid number") }
        if bytes[pos] == UInt8(ascii: "0"), pos + 1 < end, isDigit(bytes[pos + 1]) {
            throw error("leading zero in number")
        }
        var integral = true
        while pos < end, isDigit(bytes[pos]) { pos += 1 }
        if pos < end, bytes[pos] == UInt8(ascii: ".") {
            integral = false
            pos += 1
            guard pos < end, isDigit(bytes[pos]) else { throw error("expected digits after '.'") }
            while pos < end, isDigit(bytes[pos]) { pos += 1 }
        }
        if pos < end, bytes[pos] == UInt8(ascii: "e") || bytes[pos] == UInt8(ascii: "E") {
            integral = false
            pos += 1
            if pos < end, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") { pos += 1 }
            guard pos < end, isDigit(bytes[pos]) else { throw error("expected digits in exponent") }
            while pos < end, isDigit(bytes[pos]) { pos += 1 }
        }
        return integral
    }

    func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}
