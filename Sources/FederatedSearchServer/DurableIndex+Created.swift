#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FederatedSearchCore
import FederatedSearchStorage

/// Indices made by `createIndex`: their stores, made and found again at start.
extension DurableIndex {
    /// Makes the store of a new index (refusing to touch an existing file) and opens it.
    package static func create(name: String, path: String, settings: JSONObject) throws -> DurableIndex {
        guard access(path, F_OK) != 0 else {
            throw SearchError(
                .indexExists,
                "index: a store for '\(name)' exists already at \(path) (left by an index removed from the config?); move it away first")
        }
        try Folders.makeParent(of: path)
        do {
            let store = try DocumentStore(path: path)
            try store.group { g in
                _ = try g.apply([
                    .setMetadata(key: originKey, value: "createIndex"),
                    .setMetadata(key: overridesKey, value: JSONWriter.string(.object(settings))),
                    .setMetadata(key: "initialImport", value: "done"),
                ])
            }
        }
        return try DurableIndex(name: name, configSettings: [:], path: path, origin: "createIndex", initialDocuments: { [] })
    }

    /// Opens every index `createIndex` made in `directory` (at start).
    package static func openCreated(in directory: String, except configured: Set<String>) -> [(name: String, index: DurableIndex)] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let names = files.filter { $0.hasSuffix(".sqlite") }.map { String($0.dropLast(".sqlite".count)) }
            .filter { !configured.contains($0) }
        var out: [(name: String, index: DurableIndex)] = []
        for name in names.sorted() {
            let path = "\(directory)/\(name).sqlite"
            guard DurableIndex.origin(ofStoreAt: path) == "createIndex" else { continue }
            do {
                out.append(
                    (name, try DurableIndex(name: name, configSettings: [:], path: path, origin: "createIndex", initialDocuments: { [] })))
            } catch {
                Log.error("could not open the index \(name) at \(path): \(error)")
            }
        }
        return out
    }
}
