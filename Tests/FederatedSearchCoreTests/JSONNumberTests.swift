import Foundation
import Testing
@testable import FederatedSearchCore

/// Numbers read by the parser's integer fast paths are the doubles `strtod` gives: correctly
/// rounded, ties to even.
struct JSONNumberTests {
    /// The value `strtod` reads from `text` (correctly rounded by glibc).
    private func reference(_ text: String) -> Double { strtod(text, nil) }

    private func parsed(_ text: String) throws -> Double? { try JSONParser.parse(text).numberValue }

    @Test func decimalsMatchTheStandardConversion() throws {
        var rng = SystemRandomNumberGenerator()
        var texts = ["0.1", "-0.0", "0.30000000000000004", "123456789012.345", "9007199254740.993", "0.0000000000000000000001"]
        for _ in 0..<5000 {
            let whole = Int.random(in: 0...999_999, using: &rng)
            let digits = Int.random(in: 1...16, using: &rng)
            let fraction = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) })
            texts.append("\(Bool.random(using: &rng) ? "-" : "")\(whole).\(fraction)")
        }
        for text in texts {
            let parsed = try JSONParser.parse(text)
            #expect(parsed == .number(try #require(Double(text))), "\(text)")
        }
    }

    @Test func scoresAsTheDaemonWritesThemAreExact() throws {
        // Shortest round-trip forms of random scores in [0, 1): 16 or 17 digits mostly.
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200_000 {
            let d = Double.random(in: 0..<1, using: &rng)
            let text = "\(d)"
            guard !text.contains("e") else { continue }
            #expect(try parsed(text) == d, "\(text)")
        }
    }

    @Test func randomDigitStringsRoundAsStrtodDoes() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200_000 {
            let count = Int.random(in: 1...18, using: &rng)
            var digits = (0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) }
            if digits.first == "0", count > 1 { digits[0] = "1" }
            let point = Int.random(in: 0...count, using: &rng)
            var text =
                point == 0
                ? "0." + String(digits) : String(digits.prefix(point)) + (point < count ? "." + String(digits.dropFirst(point)) : "")
            if Bool.random(using: &rng) { text = "-" + text }
            if text.hasSuffix(".") { text.removeLast() }
            let value = try #require(try parsed(text), "\(text)")
            #expect(value == reference(text), "\(text)")
            #expect(value.sign == reference(text).sign, "\(text)")
        }
    }

    @Test func hardCases() throws {
        for text in [
            "0.0", "-0.0", "0.1", "0.30000000000000004", "0.9999999999999999", "0.99999999999999999",
            "9007199254740993", "9007199254740992.5", "123456789012345678", "-123456789012345678",
            "0.000000000000000001", "0.0000000000000000001234567", "1.0000000000000002", "1.00000000000000011102230246251565",
            "4.35", "2.2250738585072014", "0.8502273857722932", "999999999999999999", "0.5000000000000000555",
        ] {
            let value = try #require(try parsed(text), "\(text)")
            #expect(value == reference(text), "\(text)")
            #expect(value.sign == reference(text).sign, "\(text)")
        }
    }
}
