/// The Porter stemming algorithm for English (M. F. Porter, 1980), on folded ASCII words:
/// "connected", "connecting" and "connections" all stem to "connect". Words with other
/// characters, or shorter than 3 letters, are returned unchanged.
struct EnglishStemmer: Sendable {
    func stem(_ word: String) -> String {
        var w = Array(word.utf8)
        guard w.count > 2, w.allSatisfy({ $0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z") }) else { return word }
        step1a(&w)
        step1b(&w)
        step1c(&w)
        step2(&w)
        step3(&w)
        step4(&w)
        step5(&w)
        return String(decoding: w, as: UTF8.self)
    }

    // MARK: measure and conditions

    private func isConsonant(_ w: [UInt8], _ i: Int) -> Bool {
        switch w[i] {
        case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"): return false
        case UInt8(ascii: "y"): return i == 0 ? true : !isConsonant(w, i - 1)
        default: return true
        }
    }

    /// The number of vowel-consonant sequences in `w[0..<end]`.
    private func measure(_ w: [UInt8], _ end: Int) -> Int {
        var m = 0
        var i = 0
        while i < end && isConsonant(w, i) { i += 1 }
        while i < end {
            while i < end && !isConsonant(w, i) { i += 1 }
            if i >= end { break }
            m += 1
            while i < end && isConsonant(w, i) { i += 1 }
        }
        return m
    }

    private func hasVowel(_ w: [UInt8], _ end: Int) -> Bool { (0..<end).contains { !isConsonant(w, $0) } }

    private func endsDoubleConsonant(_ w: [UInt8], _ end: Int) -> Bool {
        end >= 2 && w[end - 1] == w[end - 2] && isConsonant(w, end - 1)
    }

    /// consonant-vowel-consonant, the last not w, x or y.
    private func endsCVC(_ w: [UInt8], _ end: Int) -> Bool {
        guard end >= 3, isConsonant(w, end - 3), !isConsonant(w, end - 2), isConsonant(w, end - 1) else { return false }
        let c = w[end - 1]
        return c != UInt8(ascii: "w") && c != UInt8(ascii: "x") && c != UInt8(ascii: "y")
    }

    private func ends(_ w: [UInt8], _ suffix: String) -> Bool {
        let s = Array(suffix.utf8)
        return w.count >= s.count && Array(w[(w.count - s.count)...]) == s
    }

    /// Replaces `suffix` with `replacement` when the stem before it has measure > `minMeasure`.
    private func replace(_ w: inout [UInt8], _ suffix: String, _ replacement: String, minMeasure: Int) -> Bool {
        guard ends(w, suffix) else { return false }
        let stemEnd = w.count - suffix.utf8.count
        if measure(w, stemEnd) > minMeasure {
            w.removeLast(suffix.utf8.count)
            w.append(contentsOf: replacement.utf8)
        }
        return true
    }

    // MARK: steps

    private func step1a(_ w: inout [UInt8]) {
        if ends(w, "sses") || ends(w, "ies") {
            w.removeLast(2)
        } else if ends(w, "ss") {
        } else if ends(w, "s") {
            w.removeLast()
        }
    }

    private func step1b(_ w: inout [UInt8]) {
        if ends(w, "eed") {
            if measure(w, w.count - 3) > 0 { w.removeLast() }
            return
        }
        var cut = 0
        if ends(w, "ed") && hasVowel(w, w.count - 2) { cut = 2 } else if ends(w, "ing") && hasVowel(w, w.count - 3) { cut = 3 }
        guard cut > 0 else { return }
        w.removeLast(cut)
        if ends(w, "at") || ends(w, "bl") || ends(w, "iz") {
            w.append(UInt8(ascii: "e"))
        } else if endsDoubleConsonant(w, w.count) {
            let c = w[w.count - 1]
            if c != UInt8(ascii: "l") && c != UInt8(ascii: "s") && c != UInt8(ascii: "z") { w.removeLast() }
        } else if measure(w, w.count) == 1 && endsCVC(w, w.count) {
            w.append(UInt8(ascii: "e"))
        }
    }

    private func step1c(_ w: inout [UInt8]) {
        if ends(w, "y") && hasVowel(w, w.count - 1) { w[w.count - 1] = UInt8(ascii: "i") }
    }

    private static let step2Rules: [(String, String)] = [
        ("ational", "ate"), ("tional", "tion"), ("enci", "ence"), ("anci", "ance"), ("izer", "ize"),
        ("abli", "able"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous"),
        ("ization", "ize"), ("ation", "ate"), ("ator", "ate"), ("alism", "al"), ("iveness", "ive"),
        ("fulness", "ful"), ("ousness", "ous"), ("aliti", "al"), ("iviti", "ive"), ("biliti", "ble"),
    ]

    private func step2(_ w: inout [UInt8]) {
        for (s, r) in Self.step2Rules where replace(&w, s, r, minMeasure: 0) { return }
    }

    private static let step3Rules: [(String, String)] = [
        ("icate", "ic"), ("ative", ""), ("alize", "al"), ("iciti", "ic"), ("ical", "ic"), ("ful", ""), ("ness", ""),
    ]

    private func step3(_ w: inout [UInt8]) {
        for (s, r) in Self.step3Rules where replace(&w, s, r, minMeasure: 0) { return }
    }

    private static let step4Suffixes = [
        "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism", "ate",
        "iti", "ous", "ive", "ize",
    ]

    private func step4(_ w: inout [UInt8]) {
        // Longest suffix first where several match ("ement" before "ment" before "ent").
        for s in Self.step4Suffixes.sorted(by: { $0.utf8.count > $1.utf8.count }) where ends(w, s) {
            let stemEnd = w.count - s.utf8.count
            if s == "ion" {
                guard stemEnd > 0, w[stemEnd - 1] == UInt8(ascii: "s") || w[stemEnd - 1] == UInt8(ascii: "t") else { return }
            }
            if measure(w, stemEnd) > 1 { w.removeLast(s.utf8.count) }
            return
        }
    }

    private func step5(_ w: inout [UInt8]) {
        if ends(w, "e") {
            let m = measure(w, w.count - 1)
            if m > 1 || (m == 1 && !endsCVC(w, w.count - 1)) { w.removeLast() }
        }
        if ends(w, "ll") && measure(w, w.count) > 1 { w.removeLast() }
    }
}
