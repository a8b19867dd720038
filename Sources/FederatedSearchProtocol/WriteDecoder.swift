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
            guard case .object(let o) = item else {
                problems.append("documents[\(i)]: expected an object, got \(item.typeName)")
                continue
            }
            switch o["objectID"] {
            case .string(let id)? where !id.isEmpty:
                let size = JSONWriter.bytes(item).count
                if size > maxDocumentBytes {
                    problems.append("documents[\(i)]: \(size) bytes, over the \(maxDocumentBytes)-byte limit")
                } else {
                    documents.append(o)
                }
            case nil: problems.append("documents[\(i)]: objectID is missing")
            case let other?: problems.append("documents[\(i)]: objectID must be a non-empty string, got \(other.typeName)")
            }
        }
        guard problems.isEmpty else {
            let shown = problems.prefix(20).joined(separator: "; ")
            let more = problems.count > 20 ? "; and \(problems.count - 20) more" : ""
            throw SearchError(.invalidDocument, "\(problems.count) of \(items.count) documents are invalid, nothing was written: \(shown)\(more)")
        }
        return documents
    }
}
