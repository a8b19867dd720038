#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FederatedSearchCore

/// Indices on other backends made by `createIndex` (today: `typesense`). Each is kept as a
/// record, `<dataDir>/<name>.searchable.json`: the searchable's object as the request gave it
/// (an `apiKey` given as `{"env": ...}` or `{"file": ...}` stays a reference), and whether
/// `createIndex` made the backend's storage, so that `deleteIndex` removes only what it made.
/// The daemon builds each again at start, as it reopens created embedded indices.
package enum CreatedSearchables {
    /// The backend kinds `createIndex` can make an index on.
    package static let kinds = ["typesense"]
    static let suffix = ".searchable.json"

    /// A created index's record.
    package struct Record: Sendable {
        package var name: String
        /// The searchable's object, `backend` included.
        package var searchable: JSONObject
        /// Whether `createIndex` made the backend's storage (false: it existed).
        package var madeStorage: Bool

        package init(name: String, searchable: JSONObject, madeStorage: Bool) {
            self.name = name
            self.searchable = searchable
            self.madeStorage = madeStorage
        }
    }

    /// The record's path for an index.
    package static func path(of name: String, in directory: String) -> String { "\(directory)/\(name)\(suffix)" }

    /// Reads a `createIndex` request's `searchable` object: a kind `createIndex` supports, and
    /// options that kind accepts (checked by building it).
    package static func decode(name: String, _ object: JSONObject) throws(SearchError) -> DaemonConfig.SearchableConfig {
        let s = try DaemonConfig.SearchableConfig.decode(name: name, object, path: "searchable")
        guard kinds.contains(s.kind) else {
            throw SearchError(
                .invalidField,
                "searchable.backend: createIndex makes embedded indices (give settings) and indices on \(kinds.joined(separator: ", ")), not '\(s.kind)'"
            )
        }
        return s
    }

    /// The catalog entry of a created index.
    package static func entry(_ s: DaemonConfig.SearchableConfig, config: DaemonConfig, registry: BackendRegistry) throws -> Catalog.Entry {
        try Catalog.buildEntry(s, config: config, registry: registry, fingerprint: Catalog.createdFingerprint)
    }

    /// Writes the record durably: a temporary file, synced, renamed over the name, the folder
    /// synced. Only its owner may read it (it may hold an API key).
    package static func write(_ record: Record, in directory: String) throws(SearchError) {
        let object: JSONObject = [
            "createdBy": "createIndex", "madeStorage": .bool(record.madeStorage), "searchable": .object(record.searchable),
        ]
        let bytes = JSONWriter.bytes(.object(object))
        let final = path(of: record.name, in: directory)
        let temporary = final + ".tmp"
        do { try Folders.makeParent(of: final) } catch { throw SearchError(.internalError, "\(error)") }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw failure("cannot create \(temporary)") }
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        guard written == bytes.count, synced, rename(temporary, final) == 0 else {
            let e = failure("cannot write \(final)")
            unlink(temporary)
            throw e
        }
        syncFolder(directory)
    }

    /// Removes the record (the index is no longer reopened at start).
    package static func remove(_ name: String, in directory: String) {
        unlink(path(of: name, in: directory))
        syncFolder(directory)
    }

    /// Whether a record file of that name is there (readable or not).
    package static func hasRecord(_ name: String, in directory: String) -> Bool { access(path(of: name, in: directory), F_OK) == 0 }

    /// The record of a created index, if there is one.
    package static func record(_ name: String, in directory: String) -> Record? {
        guard let bytes = try? FileReader.read(path(of: name, in: directory), field: "dataDir"),
            case .object(let o)? = try? JSONParser.parse(bytes), o["createdBy"] == "createIndex",
            case .object(let searchable)? = o["searchable"]
        else { return nil }
        return Record(name: name, searchable: searchable, madeStorage: o["madeStorage"] == true)
    }

    /// Builds every index recorded in `directory` but those of the config (at start). One
    /// that cannot be built is logged and left out; its record stays for the next start.
    package static func openAll(in directory: String, except configured: Set<String>, config: DaemonConfig, registry: BackendRegistry)
        -> [Catalog.Entry]
    {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        var out: [Catalog.Entry] = []
        for file in files.sorted() where file.hasSuffix(suffix) {
            let name = String(file.dropLast(suffix.count))
            guard !configured.contains(name) else { continue }
            do {
                guard let record = record(name, in: directory) else {
                    throw SearchError(.invalidField, "\(path(of: name, in: directory)): not a record of createIndex")
                }
                out.append(try entry(try decode(name: name, record.searchable), config: config, registry: registry))
            } catch {
                Log.error("could not open the index \(name) made by createIndex: \(error)")
            }
        }
        return out
    }

    private static func failure(_ what: String) -> SearchError {
        SearchError(.internalError, "\(what): \(Errno.current)")
    }

    private static func syncFolder(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }
}
