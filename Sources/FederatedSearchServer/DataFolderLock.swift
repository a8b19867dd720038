#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchCore
import Synchronization

/// One daemon per data folder: an exclusive `flock` on `<dataDir>/fedsearchd.lock`, taken
/// before any store is opened and held for the life of the process (the kernel lets it go
/// when the process ends, however it ends). Two daemons on one folder would hand out the same
/// task ids and serve different versions of one document.
package enum DataFolderLock {
    /// The lock file's name in the data folder.
    package static let fileName = "fedsearchd.lock"

    /// The descriptor holding the lock: open until the process ends.
    private static let held = Atomic<Int32>(-1)

    /// Takes the lock on `folder` (made if missing), writing this process's pid in the file;
    /// throws, naming the holder's pid, if another process holds it.
    package static func acquire(_ folder: String) throws {
        try Folders.makeParent(of: "\(folder)/\(fileName)")
        let path = "\(folder)/\(fileName)"
        let fd: Int32
        do { fd = try systemCall { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) } } catch {
            throw SearchError(.invalidField, "dataDir: cannot open '\(path)': \(error)")
        }
        do { try systemCall { flock(fd, LOCK_EX | LOCK_NB) } } catch {
            let holder = readPID(fd)
            close(fd)
            if error.wouldBlock {
                throw SearchError(
                    .invalidField,
                    "dataDir: '\(folder)' is in use by another fedsearchd\(holder.map { " (pid \($0))" } ?? ""); one daemon per data folder"
                )
            }
            throw SearchError(.invalidField, "dataDir: cannot lock '\(path)': \(error)")
        }
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        held.store(fd, ordering: .relaxed)
    }

    /// The pid written in the lock file, if any.
    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return Int32(String(decoding: buffer[..<n].filter { (0x30...0x39).contains($0) }, as: UTF8.self))
    }
}
