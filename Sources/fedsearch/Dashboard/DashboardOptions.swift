import FederatedSearchCore
import InstantSearch

/// `fedsearch dashboard`'s options.
struct DashboardOptions {
    static let usage = """
        usage: fedsearch dashboard [--index a,b] [--facets f,g] [--hits N] [--show index:a,b]... [--live MODE]
                                  [--trace FILE] [--socket PATH]

          A live multi-index search screen: type a query, watch a column per index fill in as
          each answers, the merged list beside them, facet panels whose counts follow the
          query, and each source's time and status.

          --index a,b    indices to search, one column each (default: every index)
          --facets f,g   facet panels (default: the first facet of each index)
          --hits N       hits asked of each index per page (default 20)
          --live MODE    empty (default): the empty query's answer is live, each write that
                         changes it shown as it lands, new hits marked +; on: every query's;
                         off: none (Ctrl-L switches live on and off as you go)
          --trace FILE   writes, for each keystroke, the time from reading the key to the
                         refresh that first shows each index's results for it (JSON lines)
          --show i:a,b   the attributes the line under each hit of index i is chosen from
                         (the best-matching one; default: any but the title); `i:` alone
                         shows no such line; may be given once per index

          keys: type to search · Tab / Shift-Tab next / previous pane · ↑ ↓ PgUp PgDn move
                Space toggle the facet value · Esc clear the filters · Ctrl-U clear the query
                Ctrl-R reset the search counter · Ctrl-L live on / off · ? or F1 every key · q quit (outside the
                search box) · Ctrl-C quit. Started before the daemon, it waits for it.
        """

    var indices: [String]?
    var facets: [String]?
    var hitsPerPage = 20
    /// `--live`: which searches stay subscribed.
    var live = FederatedSearcher.LiveMode.emptyQuery
    /// Per index, the attributes of the line under each hit (empty: no line).
    var show: [String: [String]] = [:]
    /// `--trace`: where keystroke-to-screen times go.
    var tracePath: String?
    var socketPath: String

    init(_ args: ArraySlice<String>, socketPath: String) {
        let parsed = parseCommand(args, valueOptions: ["index", "facets", "hits", "show", "live", "trace", "socket"], usage: Self.usage)
        guard parsed.positional.isEmpty else { fail("unexpected argument '\(parsed.positional[0])'", usage: Self.usage) }
        func list(_ name: String) -> [String]? {
            parsed.options[name].map {
                $0.split(separator: ",").map { $0.split(separator: " ").joined(separator: " ") }.filter { !$0.isEmpty }
            }
        }
        indices = list("index").map { names in names.enumerated().filter { !names[..<$0.offset].contains($0.element) }.map(\.element) }
        facets = list("facets")
        do { hitsPerPage = try intOption(parsed, "hits", range: 1...100) ?? 20 } catch let e as UsageError {
            fail(e.message, usage: Self.usage)
        } catch { fail("\(error)") }
        for value in parsed.repeated["show"] ?? [] {
            guard let colon = value.firstIndex(of: ":"), colon != value.startIndex else {
                fail("--show '\(value)': expected index:attribute,attribute", usage: Self.usage)
            }
            show[String(value[..<colon])] = value[value.index(after: colon)...].split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
        }
        switch parsed.options["live"] {
        case nil, "empty": live = .emptyQuery
        case "on": live = .on
        case "off": live = .off
        case let other?: fail("--live '\(other)': expected empty, on or off", usage: Self.usage)
        }
        tracePath = parsed.options["trace"]
        self.socketPath = parsed.options["socket"] ?? socketPath
    }
}
