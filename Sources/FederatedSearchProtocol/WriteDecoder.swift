import FederatedSearchCore

/// Validates the documents of a write batch: all of them, so the error lists every item that
/// failed and why, and the batch is refused whole.
public enum WriteDecoder {
    /// The most documents or ids in one batch.
    public static let maxBatch = 10_000
    /// The largest document, as JSON text.
    public static let maxDocumentBytes = 100 * 1024

    static func documents(_ value: JSONValue) throws(SearchError) -> [JSONObject] {
        guard case .array(let items) = value else {
            throw SearchError(.invalidField, "documents: expected an array of objects, got \(value.typeName)")
        }
        guard items.count <= maxBatch else {
            throw SearchError(.invalidField, "documents: \(items.count) documents; a batch holds at most \(maxBatch)")
        }
        var documents: [JSONObject] = []
        var problems: [String] = []
        for (i, item) in items.enumerated() {
            switch document(item, path: "documents[\(i)]") {
            case .success(let o): documents.append(o)
            case .failure(let problem): problems.append(problem.message)
            }
        }
        guard problems.isEmpty else {
            let shown = problems.prefix(20).joined(separator: "; ")
            let more = problems.count > 20 ? "; and \(problems.count - 20) more" : ""
            throw SearchError(
                .invalidDocument, "\(problems.count) of \(items.count) documents are invalid, nothing was written: \(shown)\(more)")
        }
        return documents
    }

    /// One document of a batch, checked: an object with a non-empty string `objectID`, no
    /// larger than ``maxDocumentBytes``. The failure's message starts with `path`.
    package static func document(_ item: JSONValue, path: String) -> Result<JSONObject, SearchError> {
        guard case .object(let o) = item else {
            return .failure(SearchError(.invalidDocument, "\(path): expected an object, got \(item.typeName)"))
        }
        switch o["objectID"] {
        case .string(let id)? where !id.isEmpty:
            let size = JSONWriter.bytes(item).count
            guard size <= maxDocumentBytes else {
                return .failure(SearchError(.invalidDocument, "\(path): \(size) bytes, over the \(maxDocumentBytes)-byte limit"))
            }
            return .success(o)
        case nil: return .failure(SearchError(.invalidDocument, "\(path): objectID is missing"))
        case let other?:
            return .failure(SearchError(.invalidDocument, "\(path): objectID must be a non-empty string, got \(other.typeName)"))
        }
    }

    /// The parameters `deleteBy` takes: filters only, and at least one of them.
    static let deleteByKeys: Set<String> = ["filters", "facetFilters", "numericFilters", "tagFilters", "aroundLatLng", "aroundRadius"]

    package static func deleteByParameters(_ params: JSONObject) throws(SearchError) -> SearchParameters {
        for key in params.keys where !deleteByKeys.contains(key) {
            throw SearchError(
                .unknownField,
                "params.\(key): deleteBy takes only filters, facetFilters, numericFilters, tagFilters, aroundLatLng and aroundRadius")
        }
        guard !params.isEmpty else {
            throw SearchError(.missingField, "params: deleteBy needs a filter; to delete every document use clearIndex")
        }
        return try SearchParameters.decode(params, path: "params")
    }

    /// An index name `createIndex` accepts: it names the store's file, so 1 to 64 letters,
    /// digits, `_`, `-` and `.`, not starting with `.`.
    static func checkIndexName(_ name: String) throws(SearchError) {
        let allowed = name.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2D || c == 0x2E
        }
        guard !name.isEmpty, name.utf8.count <= 64, allowed, !name.hasPrefix(".") else {
            throw SearchError(
                .invalidField,
                "index: '\(name)' is not a valid name for a new index (1 to 64 letters, digits, '_', '-' or '.', not starting with '.')")
        }
    }
}
