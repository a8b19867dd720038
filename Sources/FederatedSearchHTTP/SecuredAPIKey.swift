#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FederatedSearchCore
import FederatedSearchProtocol
import FederatedSearchServer

/// A secured API key, as Algolia's clients make them (`generateSecuredApiKey`): the base64 of
/// the hex HMAC-SHA256 of a restriction query string, keyed by a parent key's value, followed
/// by that query string. The daemon accepts one whose parent is a configured key with the
/// `search` right, and holds every request made with it to its restrictions: `filters` (ANDed
/// with the request's), `restrictIndices`, `validUntil` (seconds since 1970), `restrictSources`
/// (client address ranges, `;` or `,` between them), `referers` (patterns of the `Referer`
/// header), `userToken` (kept as the requests' user token), and any other search parameter
/// (in force whatever the request says). It may search and browse, nothing else.
package struct SecuredAPIKey: Sendable {
    /// The configured key whose value signed it.
    package let parent: APIKey
    /// The restriction query string it carries (what tells two secured keys apart).
    package let signedQuery: String
    /// What it imposes on every search.
    package let restriction: SearchRestriction
    /// Index name patterns it may reach (nil: the parent's).
    package let indices: [String]?
    package let validUntil: Int64?
    package let sources: [AddressRange]
    package let referers: [String]
    package let userToken: String?

    /// The rights a secured key keeps of its parent's.
    static let rights: Set<APIKey.Right> = [.search, .browse]

    /// The secured key `given` stands for, if one of `keys` signed it; an error response if it
    /// is signed but unusable (expired, or from elsewhere); nil if it is not a secured key of
    /// these keys.
    package static func verify(
        _ given: String, keys: [APIKey], clientAddress: String?, referer: String?, now: Double = Date().timeIntervalSince1970
    ) -> Result<SecuredAPIKey, SearchError>? {
        guard given.utf8.count > 64, let data = Data(base64Encoded: given) else { return nil }
        let bytes = [UInt8](data)
        guard bytes.count > 64 else { return nil }
        let mac = Array(bytes[..<64])
        let query = Array(bytes[64...])
        // Every parent is tried, so the time taken does not tell which one signed it.
        var signer: APIKey?
        for key in keys where key.acl.contains(.search) {
            let expected = Array(HMACSHA256.hex(key: Array(key.value.value.utf8), message: query).utf8)
            if APIKey.constantTimeEqual(expected, mac), signer == nil { signer = key }
        }
        guard let parent = signer else { return nil }
        let key: SecuredAPIKey
        do { key = try decode(String(decoding: query, as: UTF8.self), parent: parent) } catch { return .failure(error) }
        if let until = key.validUntil, Double(until) < now {
            return .failure(SearchError(.forbidden, "the secured API key expired (validUntil \(until))"))
        }
        if !key.sources.isEmpty, !(clientAddress.map { a in key.sources.contains { $0.contains(a) } } ?? false) {
            return .failure(SearchError(.forbidden, "the secured API key may not be used from this address (restrictSources)"))
        }
        if !key.referers.isEmpty, !(referer.map { r in key.referers.contains { APIKey.matches(r, pattern: $0) } } ?? false) {
            return .failure(SearchError(.forbidden, "the secured API key may not be used from this page (referers)"))
        }
        return .success(key)
    }

    /// The restrictions of a verified key's query string.
    static func decode(_ query: String, parent: APIKey) throws(SearchError) -> SecuredAPIKey {
        var filter: FilterExpression?
        var parameters = JSONObject()
        var indices: [String]?
        var validUntil: Int64?
        var sources: [AddressRange] = []
        var referers: [String] = []
        var userToken: String?
        for (name, value) in URLForm.pairs(query) {
            switch name {
            case "filters":
                do { filter = try FilterParser.parse(value) } catch {
                    throw SearchError(.forbidden, "the secured API key's filters do not parse: \(error.message)")
                }
            case "restrictIndices": indices = list(value)
            case "validUntil":
                guard let v = Int64(value) else { throw SearchError(.forbidden, "the secured API key's validUntil is not a number") }
                validUntil = v
            case "restrictSources":
                for text in list(value) {
                    guard let range = AddressRange(text) else {
                        throw SearchError(.forbidden, "the secured API key's restrictSources holds '\(text)', not an address range")
                    }
                    sources.append(range)
                }
            case "referers": referers = list(value)
            case "userToken": userToken = value
            default:
                if let v = AlgoliaParams.typed(name, value) { parameters[name] = v }
            }
        }
        var check = SearchParameters()
        do { try check.apply(parameters, path: "secured API key", ignoringUnknownKeys: true) } catch {
            throw SearchError(.forbidden, "the secured API key's search parameters are not valid: \(error.message)")
        }
        return SecuredAPIKey(
            parent: parent, signedQuery: query, restriction: SearchRestriction(filter: filter, parameters: parameters), indices: indices,
            validUntil: validUntil, sources: sources, referers: referers, userToken: userToken)
    }

    /// Whether the key may use `right` on index `name` (nil: no one index).
    package func allows(_ right: APIKey.Right, index name: String?) -> Bool {
        guard Self.rights.contains(right), parent.allows(right, index: name) else { return false }
        guard let name, let indices else { return true }
        return indices.contains { APIKey.matches(name, pattern: $0) }
    }

    /// `a,b` or `a;b`, or a JSON array.
    private static func list(_ text: String) -> [String] {
        if case .array(let items)? = try? JSONParser.parse(text) { return items.compactMap(\.stringValue) }
        return text.split(whereSeparator: { $0 == "," || $0 == ";" }).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// An IPv4 or IPv6 address range (`10.0.0.0/8`, `::1/128`; a bare address is itself).
package struct AddressRange: Sendable {
    let network: [UInt8]
    let prefixLength: Int

    init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1)
        guard let address = Self.bytes(String(parts[0])) else { return nil }
        let bits = address.count * 8
        let length = parts.count > 1 ? Int(parts[1]) : bits
        guard let length, (0...bits).contains(length) else { return nil }
        network = address
        prefixLength = length
    }

    /// Whether `address` (text, as the listener reads a peer's) is in the range.
    func contains(_ address: String) -> Bool {
        guard var a = Self.bytes(address) else { return false }
        if a.count == 16, network.count == 4, a.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] { a = Array(a.suffix(4)) }
        guard a.count == network.count else { return false }
        var left = prefixLength
        for i in 0..<a.count where left > 0 {
            let mask: UInt8 = left >= 8 ? 0xFF : UInt8(0xFF) << (8 - left)
            if a[i] & mask != network[i] & mask { return false }
            left -= 8
        }
        return true
    }

    /// The address's bytes (4 or 16), by `inet_pton`.
    private static func bytes(_ text: String) -> [UInt8]? {
        var v4 = [UInt8](repeating: 0, count: 4)
        if inet_pton(AF_INET, text, &v4) == 1 { return v4 }
        var v6 = [UInt8](repeating: 0, count: 16)
        if inet_pton(AF_INET6, text, &v6) == 1 { return v6 }
        return nil
    }
}
