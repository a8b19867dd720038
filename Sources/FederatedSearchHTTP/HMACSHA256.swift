import CCrypto

/// HMAC-SHA256 by OpenSSL's libcrypto (never cryptography written here).
enum HMACSHA256 {
    /// The MAC of `message` under `key`, as 64 lowercase hex digits.
    static func hex(key: [UInt8], message: [UInt8]) -> String {
        var mac = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // Unsafe pointers to three arrays that outlive the call: libcrypto reads `key` and
        // `message` for their given lengths and writes at most EVP_MAX_MD_SIZE bytes to `mac`,
        // telling how many in `length` (32 for SHA-256).
        let done = key.withUnsafeBufferPointer { k in
            message.withUnsafeBufferPointer { m in
                mac.withUnsafeMutableBufferPointer { out in
                    HMAC(EVP_sha256(), k.baseAddress, Int32(k.count), m.baseAddress, m.count, out.baseAddress, &length)
                }
            }
        }
        guard done != nil else { return "" }
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(Int(length) * 2)
        for byte in mac.prefix(Int(length)) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
