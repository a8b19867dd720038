import FederatedSearchCore

/// The searchable attributes of an index without a `searchableAttributes` setting: the text
/// attributes its documents have brought, kept in the order they were first seen and never
/// taken back (as Meilisearch keeps its fields map). Its owner stores the list, so every build
/// and every write of the index searches the same attributes in the same order, and a write
/// updates the index in place unless it brings an attribute never seen before.
extension EmbeddedIndex {
    /// The text attributes of `documents` not in `known`, in the order a build finds them: the
    /// documents in the index's order (by `customRanking`, then as given), each document's
    /// attributes as written.
    public static func newTextAttributes(in documents: [JSONObject], settings: IndexSettings, known: [String]) -> [String] {
        let ordered =
            settings.customRanking.isEmpty
            ? documents : SortOrdinals.order(documents: documents, criteria: settings.customRanking).map { documents[$0] }
        let found = IndexSnapshot.discoverTextAttributes(ordered, known: Set(known)).map(\.name)
        return found
    }
}

extension IndexSettings {
    /// These settings with `fields` as the searchable attributes (each its own priority, in
    /// order) when they name none; as they are otherwise.
    public func searching(discovered fields: [String]) -> IndexSettings {
        guard searchableAttributes.isEmpty else { return self }
        var s = self
        s.searchableAttributes = fields.enumerated().map { SearchableAttribute(name: $1, priority: $0) }
        return s
    }
}
