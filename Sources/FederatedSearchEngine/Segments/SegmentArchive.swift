import FederatedSearchCore

/// A segment saved as columns (``ColumnArchive``) and opened again without rebuilding it: its
/// term dictionary, postings, field lengths, facet fields, ordinals and objectIDs, with each
/// document's position and content hash. Not its documents: those stay in the store, the
/// source of truth, and a saved segment serves a stored document only if the document's
/// hash and position are still the ones it was built from (see ``EmbeddedIndex/opening(name:settings:configuredSettings:archives:stored:)``).
/// What only speeds queries up (bitmaps, prefix documents, the forward index, stems) is
/// derived again as it opens.
enum SegmentArchive {
    /// The layout's version: a change to what is saved, or to how the engine builds what it
    /// saves, must raise it, so that files of another version are rebuilt, never misread.
    static let format = 1

    /// The archive, or nil for a segment whose strings do not fit 32-bit offsets (4 GiB).
    static func encode(_ segment: Segment, meta: JSONObject, hash: (JSONObject) -> UInt64) -> ColumnArchive? {
        let s = segment.snapshot
        func fits(_ strings: [String]) -> Bool { strings.reduce(0) { $0 + $1.utf8.count } < Int(UInt32.max) }
        guard fits(s.objectIDs), fits(s.distinctValues), s.facets.allSatisfy({ fits($0.values) }) else { return nil }
        var a = ColumnArchive()
        let header: JSONObject = ["format": .number(Double(format)), "documents": .number(Double(s.documentCount)), "meta": .object(meta)]
        a.append(.u8(JSONWriter.bytes(.object(header))))
        a.append(strings: s.objectIDs)
        a.append(.i64(s.positions))
        a.append(.u64(s.documents.map(hash)))
        let t = s.text
        a.append(.u8(t.dictionary.bytes))
        a.append(.u32(t.dictionary.offsets))
        a.append(.u32(t.postings.termStart))
        a.append(.u32(t.postings.docs))
        a.append(.u32(t.postings.attributeKey))
        a.append(.u32(t.postings.positionStart))
        a.append(.u32(t.postings.positions))
        a.append(.u16(t.fieldLength))
        a.append(.f64(t.fieldLengthTotals))
        a.append(strings: s.facets.map(\.name))
        for f in s.facets {
            a.append(strings: f.values)
            for column in [f.docStart, f.docValues, f.valueStart, f.valueDocs, f.numberStart] { a.append(.u32(column)) }
            a.append(.f64(f.numbers))
            a.append(.f64(f.sortedNumbers.numbers))
            a.append(.u32(f.sortedNumbers.documents))
        }
        a.append(.u32(s.customOrdinal))
        a.append(.f64(s.customValues))
        let rules = IndexSnapshot.sortRules(s.settings).map(\.rule)
        a.append(strings: rules)
        for rule in rules {
            a.append(.u32(s.sortOrdinals[rule] ?? []))
            a.append(.f64(s.sortValues[rule] ?? []))
        }
        a.append(.f64(s.latitudes))
        a.append(.f64(s.longitudes))
        a.append(.u32(s.distinctKeys))
        a.append(strings: s.distinctValues)
        return a
    }

    /// The caller's `meta` saved with the archive, if the archive is of this ``format``.
    static func meta(_ archive: ColumnArchive) -> JSONObject? {
        guard case .u8(let bytes)? = archive.columns.first, case .object(let header)? = try? JSONParser.parse(bytes),
            header["format"]?.numberValue == Double(format), case .object(let meta)? = header["meta"]
        else { return nil }
        return meta
    }

    /// What an archive holds before its documents are matched with the store's.
    struct Decoded {
        /// The objectIDs' bytes, concatenated, and where each ends (see ``objectID(_:)``).
        let idBytes: [UInt8]
        let idEnds: [UInt32]
        let positions: [Int64]
        let hashes: [UInt64]
        /// Everything but the documents, for ``IndexSnapshot/init(settings:documents:objectIDs:positions:parts:)``.
        let parts: IndexSnapshot.SnapshotParts

        var count: Int { idEnds.count }

        private func idRange(_ d: Int) -> Range<Int> { (d == 0 ? 0 : Int(idEnds[d - 1]))..<Int(idEnds[d]) }

        /// The objectID of document `d`.
        func objectID(_ d: Int) -> String { String(decoding: idBytes[idRange(d)], as: UTF8.self) }

        /// Whether document `d`'s objectID is `id` (without making a string of it).
        func hasObjectID(_ d: Int, _ id: String) -> Bool { id.utf8.elementsEqual(idBytes[idRange(d)]) }
    }

    /// Why an archive cannot be opened.
    struct Unusable: Error {
        let reason: String
    }

    /// Reads an archive written by ``encode(_:meta:hash:)`` for an index with these settings,
    /// checking that its arrays agree in length with one another and with its document count,
    /// so that no query can index past one.
    static func decode(_ archive: ColumnArchive, settings: IndexSettings) throws(Unusable) -> Decoded {
        do {
            return try read(archive, settings: settings)
        } catch let e as ColumnReader.Mismatch {
            throw Unusable(reason: e.description)
        } catch let e as Unusable {
            throw e
        } catch {
            throw Unusable(reason: "\(error)")
        }
    }

    private static func read(_ archive: ColumnArchive, settings: IndexSettings) throws -> Decoded {
        var r = ColumnReader(archive)
        _ = try r.u8()
        let idBytes = try r.u8()
        let idEnds = try r.u32()
        let n = idEnds.count
        try check(ascending(idEnds) && Int(idEnds.last ?? 0) <= idBytes.count, "the objectIDs")
        let positions = try r.i64()
        let hashes = try r.u64()
        let termBytes = try r.u8()
        let termOffsets = try r.u32()
        let postings = PostingStore(
            termStart: try r.u32(), docs: try r.u32(), attributeKey: try r.u32(), positionStart: try r.u32(), positions: try r.u32())
        let fieldLength = try r.u16()
        let totals = try r.f64()
        let slots = Array(settings.searchableAttributes.prefix(TextIndex.maxSlots))
        try check(positions.count == n && hashes.count == n, "the documents' positions or hashes")
        // Checked before the dictionary's trie is built from them.
        try check(
            termOffsets.first == 0 && Int(termOffsets.last ?? 0) == termBytes.count && ascending(termOffsets), "the term dictionary")
        let dictionary = TermDictionary(bytes: termBytes, offsets: termOffsets)
        try check(
            ascending(postings.termStart) && ascending(postings.positionStart)
                && postings.positions.allSatisfy({ Int($0 >> PostingStore.positionBits) < slots.count }), "the postings' order and slots")
        try check(
            postings.termStart.count == dictionary.count + 1 && postings.termStart.first == 0
                && Int(postings.termStart.last!) == postings.docs.count && postings.attributeKey.count == postings.docs.count
                && postings.positionStart.count == postings.docs.count + 1
                && Int(postings.positionStart.last!) == postings.positions.count, "the postings")
        try check(postings.docs.allSatisfy { Int($0) < n }, "the postings' documents")
        try check(fieldLength.count == n * slots.count && totals.count == slots.count, "the field lengths")
        let text = TextIndex(
            dictionary: dictionary, postings: postings, fieldLength: fieldLength, fieldLengthTotals: totals, slots: slots, documentCount: n)

        let analyzer = TextAnalyzer(separatorsToIndex: settings.separatorsToIndex)
        let faceting = IndexSnapshot.facetingAttributes(settings)
        try check(try r.strings() == faceting.map(\.name), "the faceting attributes")
        var facets: [FacetField] = []
        for attribute in faceting {
            let values = try r.strings()
            let docStart = try r.u32()
            let docValues = try r.u32()
            let valueStart = try r.u32()
            let valueDocs = try r.u32()
            let numberStart = try r.u32()
            let numbers = try r.f64()
            let sorted = SortedNumbers(sortedNumbers: try r.f64(), documents: try r.u32())
            try check(ascending(docStart) && ascending(valueStart) && ascending(numberStart), "the facet field \(attribute.name)'s order")
            try check(
                docStart.count == n + 1 && Int(docStart.last!) == docValues.count && valueStart.count == values.count + 1
                    && Int(valueStart.last!) == valueDocs.count && numberStart.count == n + 1 && Int(numberStart.last!) == numbers.count
                    && sorted.numbers.count == numbers.count && sorted.documents.count == numbers.count
                    && docValues.allSatisfy { Int($0) < values.count } && valueDocs.allSatisfy { Int($0) < n }
                    && sorted.documents.allSatisfy { Int($0) < n }, "the facet field \(attribute.name)")
            facets.append(
                FacetField(
                    attribute: attribute, values: values, docStart: docStart, docValues: docValues, valueStart: valueStart,
                    valueDocs: valueDocs, numberStart: numberStart, numbers: numbers, sortedNumbers: sorted, analyzer: analyzer))
        }
        let customOrdinal = try r.u32()
        let customValues = try r.f64()
        try check(fits(customOrdinal, customValues, criteria: settings.customRanking.count, n), "the custom ranking")
        let rules = IndexSnapshot.sortRules(settings).map(\.rule)
        try check(try r.strings() == rules, "the sort rules")
        var sorts: [String: (ordinals: [UInt32], values: [Double])] = [:]
        for rule in rules {
            let ordinals = try r.u32()
            let values = try r.f64()
            try check(fits(ordinals, values, criteria: 1, n), "the ordinals of \(rule)")
            sorts[rule] = (ordinals, values)
        }
        let latitudes = try r.f64()
        let longitudes = try r.f64()
        try check(latitudes.count == longitudes.count && (latitudes.isEmpty || latitudes.count == n), "the geolocations")
        let distinctKeys = try r.u32()
        let distinctValues = try r.strings()
        try check(
            (distinctKeys.isEmpty || distinctKeys.count == n) && distinctKeys.allSatisfy { $0 == .max || Int($0) < distinctValues.count },
            "the distinct keys")
        try check(r.isAtEnd, "the columns after the last")
        return Decoded(
            idBytes: idBytes, idEnds: idEnds, positions: positions, hashes: hashes,
            parts: IndexSnapshot.SnapshotParts(
                text: text, facets: facets, customOrdinal: customOrdinal, customValues: customValues, sorts: sorts,
                latitudes: latitudes, longitudes: longitudes, distinctKeys: distinctKeys, distinctValues: distinctValues))
    }

    /// Whether offsets never go back (each range in them is a range).
    private static func ascending(_ offsets: [UInt32]) -> Bool {
        zip(offsets, offsets.dropFirst()).allSatisfy { $0 <= $1 }
    }

    /// Whether `n` documents have an ordinal each, each with its `criteria` sort keys in `values`.
    private static func fits(_ ordinals: [UInt32], _ values: [Double], criteria: Int, _ n: Int) -> Bool {
        ordinals.count == n && ordinals.allSatisfy { (Int($0) + 1) * criteria <= values.count }
    }

    private static func check(_ holds: Bool, _ what: String) throws(Unusable) {
        if !holds { throw Unusable(reason: "\(what) disagree with the archive's documents") }
    }
}
