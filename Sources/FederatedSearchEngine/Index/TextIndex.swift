import FederatedSearchCore

/// The full-text part of an index: term dictionary, postings and document lengths. A class,
/// so that reading it from its snapshot (as every stage of a query does) takes one reference
/// rather than copying its many arrays.
final class TextIndex: Sendable {
    let dictionary: TermDictionary
    let postings: PostingStore
    /// Bitmaps of the frequent terms.
    let bitmaps: TermBitmaps
    /// The documents of the short prefixes with many postings.
    let prefixDocuments: PrefixDocuments
    /// Each document's postings.
    let forward: ForwardIndex
    /// Words of document `d` in attribute slot `s` at `fieldLength[d * slots.count + s]`
    /// (capped at 65535), for BM25F's per-attribute length normalisation.
    let fieldLength: [UInt16]
    /// Words in each slot summed over every document.
    let fieldLengthTotals: [Double]
    /// Average words per document in each slot (at least 1).
    let averageFieldLength: [Double]
    /// BM25F weight of each attribute slot: an occurrence in it counts this much.
    let slotWeights: [Double]
    /// Searchable attributes by slot (the slot is packed into positions).
    let slots: [SearchableAttribute]

    /// Words left between array elements, so that words of different elements are never adjacent.
    static let elementGap = 8
    /// The most attribute slots a packed position can hold.
    static let maxSlots = 1 << (32 - Int(PostingStore.positionBits))

    /// Indexes the searchable attributes of every document.
    convenience init(documents: [JSONObject], attributes: [SearchableAttribute], analyzer: TextAnalyzer) {
        let slots = Array(attributes.prefix(Self.maxSlots))
        let paths = slots.map { AttributePath($0.name) }
        var ids: [String: UInt32] = [:]
        var terms: [String] = []
        var occTerm: [UInt32] = []
        var occDoc: [UInt32] = []
        var occPos: [UInt32] = []
        let estimate = documents.count * 8
        occTerm.reserveCapacity(estimate)
        occDoc.reserveCapacity(estimate)
        occPos.reserveCapacity(estimate)
        var lengths = [UInt16](repeating: 0, count: documents.count * slots.count)
        var totals = [Double](repeating: 0, count: slots.count)
        let mask = Int(PostingStore.positionMask)

        for (d, doc) in documents.enumerated() {
            let doc32 = UInt32(d)
            for (slot, path) in paths.enumerated() {
                let slotBits = UInt32(slot) << PostingStore.positionBits
                var position = 0
                var length = 0
                path.forEachText(in: doc) { text, element in
                    if element > 0 { position += Self.elementGap }
                    let start = position
                    position = analyzer.forEachIndexTerm(in: text, firstPosition: position) { term, p in
                        let id: UInt32
                        if let known = ids[term] {
                            id = known
                        } else {
                            id = UInt32(terms.count)
                            ids[term] = id
                            terms.append(term)
                        }
                        occTerm.append(id)
                        occDoc.append(doc32)
                        occPos.append(slotBits | UInt32(min(p, mask)))
                    }
                    length += position - start
                }
                let capped = UInt16(min(length, Int(UInt16.max)))
                lengths[d * slots.count + slot] = capped
                totals[slot] += Double(capped)  // as stored, so that a deletion takes away what it added
            }
        }

        // Term ids in byte order, so a prefix is an id range.
        let order = terms.indices.sorted { terms[$0].utf8.lexicographicallyPrecedes(terms[$1].utf8) }
        var remap = [UInt32](repeating: 0, count: terms.count)
        for (newId, old) in order.enumerated() { remap[old] = UInt32(newId) }
        let dictionary = TermDictionary(sortedTerms: order.map { terms[$0] })

        // Counting sort of occurrences by term; within a term they stay in (document, position) order.
        var termOcc = [UInt32](repeating: 0, count: terms.count + 1)
        for t in occTerm { termOcc[Int(remap[Int(t)]) + 1] += 1 }
        for i in 0..<terms.count { termOcc[i + 1] += termOcc[i] }
        var fill = termOcc
        var sortedDoc = [UInt32](repeating: 0, count: occTerm.count)
        var positions = [UInt32](repeating: 0, count: occTerm.count)
        for i in 0..<occTerm.count {
            let t = Int(remap[Int(occTerm[i])])
            let k = Int(fill[t])
            sortedDoc[k] = occDoc[i]
            positions[k] = occPos[i]
            fill[t] = UInt32(k + 1)
        }

        // Group each term's occurrences by document into postings.
        var termStart: [UInt32] = [0]
        termStart.reserveCapacity(terms.count + 1)
        var docs: [UInt32] = []
        var first: [UInt32] = []
        var positionStart: [UInt32] = []
        docs.reserveCapacity(occTerm.count)
        first.reserveCapacity(occTerm.count)
        positionStart.reserveCapacity(occTerm.count + 1)
        for t in 0..<terms.count {
            var k = Int(termOcc[t])
            let end = Int(termOcc[t + 1])
            while k < end {
                let d = sortedDoc[k]
                let start = k
                while k < end && sortedDoc[k] == d { k += 1 }
                if k - start > 1 { positions[start..<k].sort() }
                docs.append(d)
                let packed = positions[start]
                let slot = slots[Int(PostingStore.slot(packed))]
                let position = slot.unordered ? 0 : min(PostingStore.word(packed), 1023)
                first.append(UInt32(min(slot.priority, 1023)) << 10 | position)
                positionStart.append(UInt32(start))
            }
            termStart.append(UInt32(docs.count))
        }
        positionStart.append(UInt32(positions.count))
        let store = PostingStore(
            termStart: termStart, docs: docs, attributeKey: first, positionStart: positionStart, positions: positions)
        self.init(
            dictionary: dictionary, postings: store, fieldLength: lengths, fieldLengthTotals: totals, slots: slots,
            documentCount: documents.count)
    }

    /// An index from its parts (built above, or read from a saved segment): what only speeds
    /// up queries (bitmaps, prefix documents, the forward index) is derived from them here.
    init(
        dictionary: TermDictionary, postings: PostingStore, fieldLength: [UInt16], fieldLengthTotals: [Double],
        slots: [SearchableAttribute], documentCount: Int
    ) {
        self.dictionary = dictionary
        self.postings = postings
        bitmaps = TermBitmaps(postings: postings, termCount: dictionary.count, documentCount: documentCount)
        prefixDocuments = PrefixDocuments(trie: dictionary.trie, postings: postings, documentCount: documentCount)
        forward = ForwardIndex(docs: postings.docs, documentCount: documentCount)
        self.fieldLength = fieldLength
        self.fieldLengthTotals = fieldLengthTotals
        averageFieldLength = fieldLengthTotals.map { max(1, $0 / Double(max(documentCount, 1))) }
        slotWeights = slots.map { Self.weight(of: $0) }
        self.slots = slots
    }

    /// The BM25F weight of an attribute: the first searchable attribute (or group of
    /// attributes listed together), by convention the title or name, counts double; the
    /// others once. Each attribute is also length-normalised on its own, so a word in a short
    /// title already outweighs one in a long body.
    static func weight(of attribute: SearchableAttribute) -> Double {
        attribute.priority == 0 ? 2 : 1
    }
}
