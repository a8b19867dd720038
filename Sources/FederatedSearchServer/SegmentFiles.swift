#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FederatedSearchCore
import FederatedSearchStorage

/// The saved segments of one durable index: a folder beside its store (`movies.sqlite` has
/// `movies.segments/`), one ``ColumnFile`` per segment, named by a generation that grows
/// (`base-000000000007.seg`), so that the newest is known without reading any. The store stays
/// the source of truth: a file only saves rebuilding the documents it still holds as stored.
package struct SegmentFiles: Sendable {
    package let folder: String

    package init(storePath: String) {
        let stem = storePath.hasSuffix(".sqlite") ? String(storePath.dropLast(".sqlite".count)) : storePath
        folder = stem + ".segments"
    }

    private static let prefix = "base-"
    private static let suffix = ".seg"

    /// The saved segments' file names, newest first. Removes what a crash left half-written
    /// (a temporary file is renamed into place only once whole and synced).
    package func names() -> [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        for f in files where f.hasSuffix(".tmp") { unlink("\(folder)/\(f)") }
        return files.filter { Self.generation(of: $0) != nil }.sorted { Self.generation(of: $0)! > Self.generation(of: $1)! }
    }

    /// Reads and checks one saved segment.
    package func read(_ name: String) throws(ColumnFile.Failure) -> ColumnArchive { try ColumnFile.read("\(folder)/\(name)") }

    /// Saves an archive as the newest segment; returns its file name.
    package func write(_ archive: ColumnArchive) throws -> String {
        try Folders.makeParent(of: "\(folder)/x")
        let next = (names().first.flatMap(Self.generation(of:)) ?? 0) + 1
        let name = Self.prefix + String(repeating: "0", count: max(0, 12 - String(next).count)) + String(next) + Self.suffix
        try ColumnFile.write(archive, to: "\(folder)/\(name)")
        return name
    }

    /// Removes saved segments by name.
    package func remove(_ names: [String]) {
        for n in names { unlink("\(folder)/\(n)") }
    }

    /// Removes the folder and everything in it (the index is being deleted).
    package func removeAll() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The bytes the saved segments take.
    package func bytes(_ names: [String]) -> Int {
        names.reduce(0) { total, n in
            var info = stat()
            return total + (stat("\(folder)/\(n)", &info) == 0 ? Int(info.st_size) : 0)
        }
    }

    private static func generation(of name: String) -> Int? {
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return nil }
        return Int(name.dropFirst(prefix.count).dropLast(suffix.count))
    }
}
