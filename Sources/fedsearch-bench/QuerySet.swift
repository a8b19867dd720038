import FederatedSearchCore

/// Builds a deterministic mixed query set from the demo documents: single words, two words of
/// one title, and prefixes as typed into a search box.
enum QuerySet {
    struct Query {
        let text: String
        let indices: [String]
    }

    /// A small deterministic generator (SplitMix64), so every run asks the same queries.
    struct SplitMix {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
    }

    static func words(_ title: String) -> [String] {
        title.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init).filter { $0.count >= 3 }
    }

    /// `count` queries over `titles` (per index), each sent to `indicesPerQuery` indices.
    static func make(titles: [String: [String]], count: Int, indices: [String], multiIndex: Bool) -> [Query] {
        var rng = SplitMix(state: 42)
        var out: [Query] = []
        let names = indices
        while out.count < count {
            let source = names[rng.below(names.count)]
            guard let list = titles[source], !list.isEmpty else { continue }
            let w = words(list[rng.below(list.count)])
            guard !w.isEmpty else { continue }
            let text: String
            switch rng.below(3) {
            case 0: text = w[rng.below(w.count)]
            case 1:
                guard w.count >= 2 else { continue }
                let i = rng.below(w.count - 1)
                text = "\(w[i]) \(w[i + 1])"
            default:
                let word = w[rng.below(w.count)]
                text = String(word.prefix(2 + rng.below(max(1, min(3, word.count - 1)))))
            }
            out.append(Query(text: text, indices: multiIndex ? names : [source]))
        }
        return out
    }
}
