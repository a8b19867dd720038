import FederatedSearchCore
import FederatedSearchEngine

/// The `embedded` backend kind: an in-memory index over documents loaded from data files.
///
/// Options: `data` (a path or an array of paths, NDJSON or JSON arrays, relative to the
/// config file) and the index settings (`searchableAttributes`, `attributesForFaceting`, ...).
/// With a `dataDir` in the config, the index is durable (``DurableIndex``): its documents live
/// in `<dataDir>/<name>.sqlite`, the data files are imported into it once, and it takes writes.
package enum EmbeddedBackend {
    package static func make(_ context: BackendContext) throws -> any Searchable {
        var options = context.options
        var reader = FieldReader(options, path: context.path)
        let files = try reader.stringArray("data", allowSingle: true) ?? []
        options["data"] = nil
        let settings = try IndexSettings.decode(options, path: context.path)
        let load = { () throws -> [JSONObject] in
            var documents: [JSONObject] = []
            for (i, file) in files.enumerated() {
                let field = files.count == 1 ? "\(context.path).data" : "\(context.path).data[\(i)]"
                let path = context.resolvePath(file)
                documents += try DocumentLoader.load(path: path, field: field)
            }
            return documents
        }
        if let dir = context.dataDirectory {
            try Folders.makeParent(of: "\(dir)/\(context.name).sqlite")
            return try DurableIndex(
                name: context.name, configSettings: options, path: "\(dir)/\(context.name).sqlite", origin: "config",
                initialDocuments: load)
        }
        return try EmbeddedIndex(name: context.name, settings: settings, documents: try load(), configuredSettings: options)
    }
}
