/// The rows of the edit-distance table of one query word, as states of a deterministic
/// automaton built lazily while the typo walk (``TypoSearch``) runs: each state is a row's
/// band of cells (Ukkonen: only cells within `maxTypos` of the diagonal can be within budget),
/// with every value above the budget folded into one "over", plus what a transposition into
/// the next row would cost. Trie nodes reached by different prefixes often have the same row
/// (the same band of values at the same level); the automaton computes each transition once
/// per query, after which extending a row is one table read instead of a band of minima.
///
/// Distances are optimal string alignment (Damerau-Levenshtein without edits of a transposed
/// pair) between the query's characters and a prefix of a term, counted in Unicode scalars.
/// Characters are read through classes: each distinct character of the query has one, and
/// every other character shares the last (they all mismatch every cell alike).
///
/// Budgets of up to 2 only (a band of 5 cells of 2 bits each in the state's key).
struct TypoAutomaton {
    /// The budget: values above it are over budget.
    let maxTypos: Int
    /// Query length in scalars.
    let m: Int
    /// The class of each query character, by position.
    private let queryClass: [UInt8]
    /// The class of each ASCII character (`otherClass` if not in the query).
    private let asciiClass: [UInt8]
    /// Non-ASCII query characters and their classes, ascending by character.
    private let wideClasses: [(scalar: UInt32, class: UInt8)]
    /// The class of characters not in the query.
    let otherClass: UInt8
    /// The query's characters, by position.
    private let query: [UInt32]
    /// The characters of `query[k...]` (a ``CharacterMask``), for k in 0...m.
    private let suffixCharacters: [UInt64]

    /// Per state: its key (see the layout below).
    private var keys: [UInt64] = []
    /// The ids of the keys, by open addressing (a power-of-two table at most half full;
    /// `UInt64.max`, which no key is, marks a free slot): the walk interns a state per new
    /// transition, and a `Dictionary`'s hashing cost more than the transition itself.
    private var slotKeys = [UInt64](repeating: .max, count: 256)
    private var slotIds = [Int32](repeating: -1, count: 256)
    /// Per state and class: the next state, `unknown` or `dead`.
    private var table: [Int32] = []
    /// Per state: the distance from the query to the prefix read (the row's last cell, or
    /// over budget), the row's smallest cell, its smallest cell before the last, and the
    /// characters that can keep a row at the budget within it (see ``edge(_:level:)``).
    private(set) var distance: [Int32] = []
    private(set) var rowMin: [Int32] = []
    private(set) var bestBeforeLast: [Int32] = []
    private(set) var edges: [ASCIISet?] = []
    /// Per state: the characters a term below the node must hold to match (see
    /// ``needs(_:level:)``).
    private(set) var characterNeeds: [CharacterNeeds] = []

    /// How many states have been computed so far.
    var stateCount: Int { keys.count }

    static let unknown: Int32 = -1
    static let dead: Int32 = -2
    private var classCount: Int { Int(otherClass) + 1 }
    private var width: Int { 2 &* maxTypos &+ 1 }
    private var over: Int { maxTypos &+ 1 }

    /// Whether the automaton can serve this query word: a budget of 1 or 2, at most 255
    /// distinct characters (classes are bytes) and a length whose levels fit the key's 16
    /// bits. Other words go to the edit enumeration (``EditSearch``), which has no such limits.
    static func serves(_ query: [UInt32], maxTypos: Int) -> Bool {
        guard maxTypos >= 1 && maxTypos <= 2 && query.count <= 4096 else { return false }
        return Set(query).count <= 255
    }

    /// See ``serves(_:maxTypos:)`` for the words it takes.
    init(query: [UInt32], maxTypos: Int) {
        precondition(Self.serves(query, maxTypos: maxTypos), "a word the automaton does not serve")
        self.maxTypos = maxTypos
        self.query = query
        m = query.count
        var distinct: [UInt32] = []
        var classes: [UInt8] = []
        for c in query {
            if let i = distinct.firstIndex(of: c) {
                classes.append(UInt8(i))
            } else {
                classes.append(UInt8(distinct.count))
                distinct.append(c)
            }
        }
        queryClass = classes
        otherClass = UInt8(distinct.count)
        var ascii = [UInt8](repeating: UInt8(distinct.count), count: 128)
        var wide: [(UInt32, UInt8)] = []
        for (i, c) in distinct.enumerated() {
            if c < 128 { ascii[Int(c)] = UInt8(i) } else { wide.append((c, UInt8(i))) }
        }
        asciiClass = ascii
        wideClasses = wide.sorted { $0.0 < $1.0 }
        var suffixes = [UInt64](repeating: 0, count: query.count + 1)
        for k in query.indices.reversed() { suffixes[k] = suffixes[k + 1] | CharacterMask.bit(scalar: query[k]) }
        suffixCharacters = suffixes
        internFirstRow()
    }

    /// The class of a character.
    @inline(__always) func characterClass(_ c: UInt32) -> UInt8 {
        if c < 128 { return asciiClass[Int(c)] }
        // Sorted by scalar: a word may hold up to 255 distinct ones.
        var lo = 0
        var hi = wideClasses.count
        while lo < hi {
            let mid = (lo &+ hi) >> 1
            if wideClasses[mid].scalar < c { lo = mid &+ 1 } else { hi = mid }
        }
        return lo < wideClasses.count && wideClasses[lo].scalar == c ? wideClasses[lo].class : otherClass
    }

    /// The state after reading a character of class `cls` in state `s`, or nil when every cell
    /// of the next row is over budget.
    @inline(__always) mutating func next(_ s: Int32, _ cls: UInt8) -> Int32? {
        let slot = Int(s) &* classCount &+ Int(cls)
        var t = table[slot]
        if t == Self.unknown {
            t = step(s, cls)
            table[slot] = t
        }
        return t == Self.dead ? nil : t
    }

    // A state's key: its level in bits 0-15, then its band's cells (cell k of the row at band
    // index j = k - level + maxTypos) as 2-bit values from bit 16, then the transposition
    // values of the next row's band (same indexing, one level on) after them. Values run from
    // 0 to the budget, and budget + 1 stands for every value over it.

    @inline(__always) private func value(_ key: UInt64, _ index: Int) -> Int {
        Int(truncatingIfNeeded: (key >> UInt64(16 &+ 2 &* index)) & 3)
    }

    /// Cell k of the row of `key` (level `level`); over budget outside the band or the row.
    @inline(__always) private func cell(_ key: UInt64, level: Int, _ k: Int) -> Int {
        let j = k &- level &+ maxTypos
        guard j >= 0 && j < width && k >= 0 && k <= m else { return over }
        return value(key, j)
    }

    /// The state of a row (interned: one id per distinct key).
    private mutating func intern(_ key: UInt64) -> Int32 {
        var slot = slot(of: key)
        if slotKeys[slot] == key { return slotIds[slot] }
        let id = Int32(keys.count)
        keys.append(key)
        if keys.count * 2 > slotKeys.count {
            grow()
            slot = self.slot(of: key)
        }
        slotKeys[slot] = key
        slotIds[slot] = id
        table.append(contentsOf: repeatElement(Self.unknown, count: classCount))
        let level = Int(key & 0xFFFF)
        let t = maxTypos
        distance.append(Int32(cell(key, level: level, m)))
        var smallest = over
        var beforeLast = over
        var k = max(0, level &- t)
        while k <= min(m, level &+ t) {
            let v = cell(key, level: level, k)
            smallest = min(smallest, v)
            if k < m { beforeLast = min(beforeLast, v) }
            k &+= 1
        }
        rowMin.append(Int32(smallest))
        bestBeforeLast.append(Int32(beforeLast))
        edges.append(smallest == t ? edge(key, level: level) : nil)
        characterNeeds.append(needs(key, level: level))
        return id
    }

    /// The slot of `key` in the table, or the free slot where it goes.
    @inline(__always) private func slot(of key: UInt64) -> Int {
        let mask = slotKeys.count &- 1
        var i = Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
        while slotKeys[i] != key && slotKeys[i] != .max { i = (i &+ 1) & mask }
        return i
    }

    /// Doubles the table, placing every key again.
    private mutating func grow() {
        let old = zip(slotKeys, slotIds).filter { $0.0 != .max }
        slotKeys = [UInt64](repeating: .max, count: slotKeys.count * 2)
        slotIds = [Int32](repeating: -1, count: slotKeys.count)
        for (key, id) in old {
            let i = slot(of: key)
            slotKeys[i] = key
            slotIds[i] = id
        }
    }

    /// The first row: cell k is k (k deletions); the band's cells below 0 do not exist.
    private mutating func internFirstRow() {
        var key: UInt64 = 0
        for j in 0..<(2 &* width) {
            let k = j &- maxTypos  // cells of the band, then transpositions (none into row 1)
            let v = j < width && k >= 0 && k <= m ? k : over
            key |= UInt64(v) << UInt64(16 &+ 2 &* j)
        }
        _ = intern(key)
    }

    /// When every cell of a row is at least the budget, a next row keeps a cell within it only
    /// through a character equal to the query's on a diagonal from a cell at the budget, or
    /// completing a transposition at the budget: those characters (nil, meaning "any", when
    /// one of them is not ASCII). Any other character leads to a row over budget.
    private func edge(_ key: UInt64, level: Int) -> ASCIISet? {
        let t = maxTypos
        var set = ASCIISet()
        var k = max(0, level &- t)
        while k <= min(m &- 1, level &+ t) {
            if cell(key, level: level, k) == t { guard set.insert(query[k]) else { return nil } }
            k &+= 1
        }
        for j in 0..<width where value(key, width &+ j) <= t {
            let k = level &+ 1 &- t &+ j  // the next row's cell, reached from query[k - 2]
            guard k >= 2 && k &- 2 < m else { continue }
            guard set.insert(query[k &- 2]) else { return nil }
        }
        return set
    }

    /// What a term below a node in this state must hold to match: it goes on with the query's
    /// characters from some cell k (`query[k...]`, or from the next row's cell k after a
    /// transposition), with at most the budget left at that cell in edits. Each
    /// character of that rest missing from the term costs an edit, so a node whose terms lack
    /// more distinct characters of every such rest than its edits allow has no match below it.
    /// Per edits left (0, 1, 2), the characters of the shortest rest with that many (a later
    /// cell's rest is part of an earlier one's; none at the last cell), or
    /// ``CharacterNeeds/none`` when no cell has that many.
    private func needs(_ key: UInt64, level: Int) -> CharacterNeeds {
        let t = maxTypos
        // The latest cell with 0, 1 and 2 edits left (-1: none).
        var start0 = -1
        var start1 = -1
        var start2 = -1
        @inline(__always) func note(_ k: Int, _ v: Int) {
            switch t &- v {
            case 0: start0 = max(start0, k)
            case 1: start1 = max(start1, k)
            default: start2 = max(start2, k)
            }
        }
        var k = max(0, level &- t)
        while k <= min(m, level &+ t) {
            // At the last cell the query is read: a term below matches by insertions alone
            // (nothing needed) if edits are left, and not through this cell if none are.
            let v = cell(key, level: level, k)
            if v <= t && (k < m || v < t) { note(k, v) }
            k &+= 1
        }
        for j in 0..<width {
            // A transposition reads the next character (below the node) into cell k; at the
            // last cell that alone may end a match.
            let v = value(key, width &+ j)
            let k = level &+ 1 &- t &+ j
            if v <= t && k >= 2 && k <= m { note(k, v) }
        }
        @inline(__always) func characters(from k: Int) -> UInt64 { k < 0 ? CharacterNeeds.none : suffixCharacters[k] }
        return CharacterNeeds(
            exact: characters(from: start0), oneEdit: characters(from: start1),
            twoEdits: characters(from: start2))
    }

    /// Computes the transition of state `s` on class `cls` (the table's cold path).
    private mutating func step(_ s: Int32, _ cls: UInt8) -> Int32 {
        let key = keys[Int(s)]
        let level = Int(key & 0xFFFF)
        let t = maxTypos
        let over = self.over
        let matches = cls != otherClass
        let nextLevel = level &+ 1
        var next = UInt64(nextLevel)
        var any = false
        var left = over  // the new row's previous cell
        for j in 0..<width {
            let k = nextLevel &- t &+ j
            var v = over
            if k == 0 {
                v = min(nextLevel, over)  // the term's characters so far, all inserted
            } else if k > 0 && k <= m {
                let cost = matches && queryClass[k &- 1] == cls ? 0 : 1
                v = min(cell(key, level: level, k) &+ 1, cell(key, level: level, k &- 1) &+ cost, left &+ 1)
                // The transposition of this character and the one before: the state holds the
                // cell two rows back, plus one, where that one equals query[k - 1].
                if k >= 2 && matches && queryClass[k &- 2] == cls { v = min(v, value(key, width &+ j)) }
                v = min(v, over)
            }
            if v <= t { any = true }
            left = v
            next |= UInt64(v) << UInt64(16 &+ 2 &* j)
        }
        guard any else { return Self.dead }
        // For the row after: a transposition into its cell k needs query[k - 1] to be this
        // character, and costs this row's predecessor (the current row) at k - 2, plus one.
        for j in 0..<width {
            let k = nextLevel &+ 1 &- t &+ j
            var v = over
            if k >= 2 && k <= m && matches && queryClass[k &- 1] == cls { v = min(cell(key, level: level, k &- 2) &+ 1, over) }
            next |= UInt64(v) << UInt64(16 &+ 2 &* (width &+ j))
        }
        return intern(next)
    }
}

/// The characters a term below a trie node must hold for the typo walk to find a match there,
/// by edits left (see ``TypoAutomaton``): the characters of the rest of the query to read with
/// no edit left, with one, with two; ``none`` where no way on has that many edits left.
struct CharacterNeeds {
    /// No way on: every character needed (a mask of all 64 bits still admits, which only
    /// costs a visit).
    static let none = UInt64.max

    var exact: UInt64
    var oneEdit: UInt64
    var twoEdits: UInt64

    /// Whether terms holding `available` (a ``CharacterMask``) may match: some way on lacks
    /// no more distinct characters than it has edits left.
    @inline(__always) func admits(_ available: UInt64) -> Bool {
        // `x & (x - 1)` drops x's lowest bit: at most one bit missing, at most two (the
        // baseline x86-64 target has no popcount instruction).
        if exact & ~available == 0 { return true }
        let one = oneEdit & ~available
        if one & (one &- 1) == 0 { return true }
        let two = twoEdits & ~available
        let rest = two & (two &- 1)
        return rest & (rest &- 1) == 0
    }
}
