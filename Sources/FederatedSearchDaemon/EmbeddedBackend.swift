import FederatedSearchCore
import FederatedSearchEngine

/// The `embedded` backend kind: an in-memory index over documents loaded from data files.
///
/// Options: `data` (a path or an array of paths, NDJSON or JSON arrays, relative to the
/// config file) and the index settings (`searchableAttributes`, `attributesForFaceting`, ...).
enum EmbeddedBackend {
    static func make(_ context: BackendContext) throws -> any Searchable {
        var options = context.options
        var reader = FieldReader(options, path: context.path)
        let files = try reader.stringArray("data", allowSingle: true) ?? []
        options["data"] = nil
        let settings = try IndexSettings.decode(options, path: context.path)
        var documents: [JSONObject] = []
        for (i, file) in files.enumerated() {
            let field = files.count == 1 ? "\(context.path).data" : "\(context.path).data[\(i)]"
            let path = context.resolvePath(file)
            documents += try DocumentLoader.parse(try FileReader.read(path, field: field), file: path, field: field)
        }
        return try EmbeddedIndex(name: context.name, settings: settings, documents: documents)
    }
}
