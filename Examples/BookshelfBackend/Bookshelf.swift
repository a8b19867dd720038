import FederatedSearchBackends
import FederatedSearchCore

import Foundation

/// Builds the example backend from its config: `{"backend": "example.bookshelf", "books": "books.ndjson"}`.
public enum Bookshelf {
    /// The kind name the config's `backend` field uses.
    public static let kind = "example.bookshelf"

    /// Reads the `books` file (NDJSON, relative to the config file) and wraps the client so the
    /// daemon can serve it.
    public static func make(_ config: BackendConfig) throws -> ClientSearchable<BookshelfClient> {
        var reader = FieldReader(config.options, path: config.path)
        let file = try reader.requiredString("books")
        try reader.rejectUnknownKeys()
        let path = config.resolvePath(file)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw SearchError(.invalidField, "\(reader.path(of: "books")): cannot read \(path)")
        }
        var books: [Book] = []
        for (n, line) in text.split(separator: "\n").enumerated() where !line.allSatisfy(\.isWhitespace) {
            let location = "\(path):\(n + 1)"
            let json: JSONValue
            do { json = try JSONParser.parse(String(line)) } catch { throw SearchError(.invalidField, "\(location): \(error)") }
            books.append(try Book(json: json, path: location))
        }
        return ClientSearchable(BookshelfClient(books: books), name: config.name)
    }
}
