/// Combines the words' document lists into the candidate documents of a query.
enum CandidateMatcher {
    /// Documents containing every required word (smallest list first, galloping through the
    /// others), or, when every word is optional, at least one word.
    static func documents(_ words: [WordMatches], required: [Bool], documentCount: Int) -> [UInt32] {
        let order = words.indices.filter { required[$0] }.sorted { words[$0].count < words[$1].count }
        if let first = order.first {
            var current = Array(words[first].docs)
            for w in order.dropFirst() {
                if current.isEmpty { break }
                let list = words[w]
                var out: [UInt32] = []
                out.reserveCapacity(current.count)
                var j = 0
                let base = list.docs.startIndex
                for d in current {
                    j = list.seek(d, from: j)
                    if j >= list.count { break }
                    if list.docs[base + j] == d { out.append(d) }
                }
                current = out
            }
            return current
        }
        var set = DocumentSet(capacity: documentCount)
        for w in words { for d in w.docs { set.insert(d) } }
        return set.members()
    }

    /// The hit of every word in every candidate, row by row (`UInt32.max`: the word is absent).
    static func hits(_ docs: [UInt32], _ words: [WordMatches]) -> [UInt32] {
        let n = words.count
        var out = [UInt32](repeating: .max, count: docs.count * n)
        for (w, list) in words.enumerated() {
            var j = 0
            let base = list.docs.startIndex
            for (i, d) in docs.enumerated() {
                j = list.seek(d, from: j)
                if j >= list.count { break }
                if list.docs[base + j] == d { out[i * n + w] = list.hit(j) }
            }
        }
        return out
    }
}
