/// The `k` smallest ranking keys seen, kept sorted: a key that cannot enter costs one
/// comparison, so selecting a page from many candidates never sorts them all.
struct TopKeys {
    let k: Int
    private(set) var keys: [UInt128] = []

    init(k: Int) {
        self.k = k
        keys.reserveCapacity(min(k, 1024))
    }

    @inline(__always) mutating func offer(_ key: UInt128) {
        if keys.count == k {
            guard k > 0, key < keys[k - 1] else { return }
            keys.removeLast()
        }
        var lo = 0
        var hi = keys.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if keys[mid] < key { lo = mid + 1 } else { hi = mid }
        }
        keys.insert(key, at: lo)
    }

    /// Whether `k` keys are held.
    @inline(__always) var isFull: Bool { keys.count == k && k > 0 }

    /// The k-th smallest key (only when full).
    @inline(__always) var worst: UInt128 { keys[k - 1] }
}
