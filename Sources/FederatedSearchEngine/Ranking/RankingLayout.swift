import FederatedSearchCore

/// One component of a ranking key.
enum RankField: Equatable {
    case typo, geo, words, proximity, attribute, exact, custom, bm25
    case sort(String)

    /// Bits the component takes in the key.
    var width: Int {
        switch self {
        case .typo: return 7
        case .geo: return 20
        case .words: return 6
        case .proximity: return 8
        case .attribute: return 20
        case .exact: return 6
        case .custom, .sort: return 22
        case .bm25: return 20
        }
    }
}

/// Where each ranking rule's component sits in a 128-bit key: rules in order from the most
/// significant bits down, the document id in the low 32 bits. Comparing keys as integers
/// applies every rule in order; a component that cannot differ in this query (one word: no
/// proximity) takes no bits. Rules that would overflow 96 bits are dropped (documented
/// limit: it takes more than five active rules after `custom`).
struct RankingLayout {
    private(set) var fields: [(field: RankField, shift: Int)] = []
    private(set) var shifts: [Int] = [Int](repeating: -1, count: 8)

    static let documentBits = 32

    init(
        rules: [RankingRule], wordCount: Int, hasOptional: Bool, typos: Bool, geo: Bool,
        hasCustom: Bool, sortRules: Set<String>
    ) {
        var used = 0
        for rule in rules {
            let field: RankField?
            switch rule {
            case .typo: field = typos && wordCount > 0 ? .typo : nil
            case .geo: field = geo ? .geo : nil
            case .words: field = hasOptional ? .words : nil
            case .filters: field = nil
            case .proximity: field = wordCount > 1 ? .proximity : nil
            case .attribute: field = wordCount > 0 ? .attribute : nil
            case .exact: field = wordCount > 0 ? .exact : nil
            case .custom: field = hasCustom ? .custom : nil
            case .bm25: field = wordCount > 0 ? .bm25 : nil
            case .sort: field = sortRules.contains(rule.description) ? .sort(rule.description) : nil
            }
            guard let field, !fields.contains(where: { $0.field == field }) else { continue }
            guard used + field.width <= 128 - Self.documentBits else { break }
            used += field.width
            let shift = 128 - used
            fields.append((field, shift))
            if let slot = Self.slot(field) { shifts[slot] = shift }
        }
    }

    private static func slot(_ f: RankField) -> Int? {
        switch f {
        case .typo: return 0
        case .geo: return 1
        case .words: return 2
        case .proximity: return 3
        case .attribute: return 4
        case .exact: return 5
        case .custom: return 6
        case .bm25: return 7
        case .sort: return nil
        }
    }

    /// The shift of a component, or -1 when the component is not in the key.
    @inline(__always) func shift(_ f: RankField) -> Int { Self.slot(f).map { shifts[$0] } ?? -1 }

    /// Whether the component is in the key.
    func uses(_ f: RankField) -> Bool { fields.contains { $0.field == f } }
}
