#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore

/// Folders the daemon creates (a socket's, an index store's).
package enum Folders {
    /// A folder that could not be created.
    package struct CreationError: Error, CustomStringConvertible {
        package let description: String
    }

    /// Creates the folders leading to `path` (not `path` itself), like `mkdir -p` of its parent.
    package static func makeParent(of path: String) throws {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true).dropLast().map(String.init)
        var current = path.hasPrefix("/") ? "" : "."
        while !parts.isEmpty {
            current += "/" + parts.removeFirst()
            let folder = current
            do { try systemCall { mkdir(folder, 0o755) } } catch  where error.code != EEXIST {
                throw CreationError(description: "cannot create folder '\(current)': \(error)")
            } catch {}
        }
    }
}
