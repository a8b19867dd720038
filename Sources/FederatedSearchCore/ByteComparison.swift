#if canImport(Glibc)
import Glibc
#endif

/// Whether two runs of bytes are equal, compared by glibc's `memcmp` (a word or a vector at a
/// time; the generic `elementsEqual` goes byte by byte through an iterator, and a client's
/// merged list compares kilobytes of hits per answer this way).
///
/// The pointers live only inside the closures, and both ranges are the slices' own (`count`
/// is checked equal first), so `memcmp` reads nothing outside either.
public func bytesEqual(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return a.withUnsafeBytes { pa in
        b.withUnsafeBytes { pb in memcmp(pa.baseAddress!, pb.baseAddress!, pa.count) == 0 }
    }
}
