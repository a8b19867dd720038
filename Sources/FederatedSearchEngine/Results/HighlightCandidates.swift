/// The terms of a document that highlighting can possibly mark, per searchable attribute,
/// read from the forward index instead of re-analysing every attribute of every hit.
///
/// Every word the highlighter marks (``HighlightMatcher/match(_:)``: the query term, a
/// completion of a prefix, a typo variant, an inflection, a synonym) is a folded word of the
/// attribute, hence an indexed term with a position in that attribute's slot, and it is a
/// term that the query's words expand to: the exact term, the prefix range, the typo
/// variants (the same Damerau-Levenshtein budget, see ``TypoSearch``), the stem group, and
/// every term of every synonym alternative. So the candidates are a superset of what can be
/// marked: an attribute without any is rendered as it is (`matchLevel: none`) without being
/// scanned, and in the others only words equal to a candidate are handed to the matcher,
/// which alone decides (so the output is exactly the word-by-word highlighter's).
struct HighlightCandidates {
    /// Posting ranges of the candidate terms, disjoint and ascending.
    private let los: [UInt32]
    private let his: [UInt32]
    private let text: TextIndex

    /// `termSpans`: per query word, the spans it was planned with (``TextMatch/termSpans``).
    init(words: [QueryWord], termSpans: [[TermSpan]], index: IndexSnapshot, typos: Bool) {
        var spans: [TermSpan] = []
        let dict = index.text.dictionary
        func exact(_ term: String) {
            if let id = dict.id(of: Array(term.utf8)) { spans.append(TermSpan(lo: id, hi: id + 1, flags: 0)) }
        }
        for (u, w) in words.enumerated() {
            if w.isPhrase {
                // Phrase terms match as they are or inflected (no prefix, no typos).
                for t in w.terms {
                    spans += index.spans(
                        of: QueryWord(terms: [t], originals: [t], isPrefix: false, maxTypos: 0, isOptional: false),
                        typos: false)
                }
            } else if u < termSpans.count {
                spans += termSpans[u]
            } else {
                for part in w.isGroup ? w.members : [w] { spans += index.spans(of: part, typos: typos) }
            }
            let synonyms =
                w.isGroup
                ? index.synonyms.alternatives(ofGroup: w.terms)
                : w.isQuotation ? [] : index.synonyms.alternatives(of: w.term)
            for alt in synonyms { for t in alt { exact(t) } }
        }
        let termStart = index.text.postings.termStart
        let merged = TermSpan.normalized(spans.map { TermSpan(lo: $0.lo, hi: $0.hi, flags: 0) })
        los = merged.map { termStart[$0.lo] }
        his = merged.map { termStart[$0.hi] }
        text = index.text
    }

    /// Per attribute slot, the candidate terms that document `doc` holds there, into `out`,
    /// and per slot the last word position where a candidate occurs (-1: none). Both are
    /// emptied first and keep their storage, so one pair serves every hit of a query.
    func terms(of doc: UInt32, into out: inout [[Int]], lastPosition: inout [Int]) {
        let slots = text.slots.count
        if out.count != slots { out = [[Int]](repeating: [], count: slots) }
        for i in 0..<slots { out[i].removeAll(keepingCapacity: true) }
        lastPosition.removeAll(keepingCapacity: true)
        lastPosition.append(contentsOf: repeatElement(-1, count: slots))
        let forward = text.forward
        let postings = text.postings
        let s = Int(forward.start[Int(doc)])
        let e = Int(forward.start[Int(doc) + 1])
        let n = los.count
        guard n > 0, s < e else { return }
        var k = 0
        for i in s..<e {
            let p = forward.postings[i]
            if los[k] > p { continue }
            k = ForwardIndex.gallop(los, from: k, to: n) { $0 <= p } - 1
            if p < his[k] {
                let term = postings.term(ofPosting: Int(p))
                var seen: UInt64 = 0
                for packed in postings.positions[postings.positionRange(Int(p))] {
                    let slot = Int(PostingStore.slot(packed))
                    lastPosition[slot] = max(lastPosition[slot], Int(PostingStore.word(packed)))
                    if slot < 64 {
                        if seen & (1 << UInt64(slot)) != 0 { continue }
                        seen |= 1 << UInt64(slot)
                    } else if out[slot].last == term {
                        continue
                    }
                    out[slot].append(term)
                }
            } else if k == n - 1 {
                break
            }
        }
    }
}
