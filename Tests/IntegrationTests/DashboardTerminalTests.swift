import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchCore

/// `fedsearch dashboard` in a real terminal (tmux) against the real daemon on the demo config:
/// 1. typing a query fills the movies column with the expected titles, and the status line
///    with each source's state;
/// 2. Tab to the genres panel and Space on a value narrows the movies hits, and the filters
///    line shows the refinement; Esc clears it;
/// 3. resizing the terminal redraws to the new size (a narrow one shows one pane at a time);
/// 4. a daemon that goes away is shown as unreachable and comes back without a crash;
/// 5. q quits.
@Suite(.serialized, .enabled(if: TerminalSession.tmuxPath != nil, "tmux is not installed (apt-get install tmux)"))
struct DashboardTerminalTests {
    /// The number before "results" in the first line that has one (the movies column's header).
    static func firstCount(_ screen: [String]) -> Int? {
        for line in screen {
            guard let r = line.range(of: " results  ") ?? line.range(of: " result  ") else { continue }
            let digits = line[..<r.lowerBound].reversed().prefix { $0.isNumber || $0 == "," }.reversed().filter(\.isNumber)
            return Int(String(digits))
        }
        return nil
    }

    /// `fedsearch dashboard` on the movies and products of `d`, with their genres and supplier
    /// facets, at 140×40, once the movies column has answered.
    static func twoIndexDashboard(_ d: DaemonProcess) throws -> TerminalSession {
        let fedsearch = DaemonProcess.binDirectory.appendingPathComponent("fedsearch").path
        let t = try TerminalSession(
            [
                fedsearch, "--socket", d.socketPath, "dashboard", "--index", "movies,products",
                "--facets", "genres,supplier",
            ], cols: 140, rows: 40)
        let ready = try t.waitFor { $0.joined().contains("movies ok") }
        #expect(ready.ok, "the dashboard did not come up:\n\(ready.screen.joined(separator: "\n"))")
        return t
    }

    @Test func typingFacetingResizingAndADaemonThatGoesAway() throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let fedsearch = DaemonProcess.binDirectory.appendingPathComponent("fedsearch").path
        let t = try TerminalSession(
            [
                fedsearch, "--socket", d.socketPath, "dashboard", "--index", "movies,products",
                "--facets", "genres,supplier",
            ], cols: 140, rows: 40)
        let ready = try t.waitFor { $0.joined().contains("movies ok") }
        #expect(ready.ok, "the dashboard did not come up:\n\(ready.screen.joined(separator: "\n"))")
        #expect(ready.screen.contains { $0.contains("─ movies ─") } && ready.screen.contains { $0.contains("─ products ─") })
        #expect(ready.screen.contains { $0.contains("genres (movies)") } && ready.screen.contains { $0.contains("supplier (products)") })

        try t.send(["star wa"], literal: true)
        let typed = try t.waitFor { s in
            s.contains { $0.contains("> star wa") } && s.contains { $0.contains("Star Wars: The Force Awakens") }
        }
        #expect(typed.ok, "typing did not show the movies:\n\(typed.screen.joined(separator: "\n"))")
        #expect(typed.screen.contains { $0.contains("no results for 'star wa'") }, "the empty products column says so")
        let before = try #require(Self.firstCount(typed.screen))

        try t.send(["Tab"])
        try t.send(["Space"])
        let refined = try t.waitFor { s in s.contains { $0.hasPrefix("filters: genres: ") } && (Self.firstCount(s) ?? before) < before }
        #expect(refined.ok, "toggling a genre did not narrow the hits:\n\(refined.screen.joined(separator: "\n"))")
        #expect(refined.screen.contains { $0.contains("[x] ") })

        try t.send(["Escape"])
        let cleared = try t.waitFor { s in s.contains { $0.hasPrefix("filters: none") } && Self.firstCount(s) == before }
        #expect(cleared.ok, "Esc did not clear the filters:\n\(cleared.screen.joined(separator: "\n"))")

        try t.resize(cols: 70, rows: 20)
        let narrow = try t.waitFor { s in
            s.first?.hasPrefix("┌─ Search ─") == true && s.first?.count == 70
                && s.contains { $0.hasPrefix("search · genres · supplier · movies") }
        }
        #expect(narrow.ok, "the narrow terminal was not redrawn:\n\(narrow.screen.joined(separator: "\n"))")
        try t.resize(cols: 140, rows: 40)
        let wide = try t.waitFor { s in s.first?.count == 140 && s.contains { $0.contains("─ Merged ─") } }
        #expect(wide.ok, "the wide terminal was not redrawn:\n\(wide.screen.joined(separator: "\n"))")

        d.halt(kill: true)
        let gone = try t.waitFor { $0.contains { $0.contains("daemon unreachable") } }
        #expect(gone.ok, "a dead daemon is not shown:\n\(gone.screen.joined(separator: "\n"))")
        try d.start()
        try t.send(["BTab"])  // from the genres pane back to the search box
        try t.send(["r"], literal: true)
        let back = try t.waitFor { s in s.contains { $0.contains("> star war") } && s.contains { $0.contains("movies ok") } }
        #expect(back.ok, "the dashboard did not reach the restarted daemon:\n\(back.screen.joined(separator: "\n"))")
        #expect(t.isRunning)

        try t.send(["Tab"])
        try t.send(["q"], literal: true)
        #expect(poll(seconds: 10) { !t.isRunning }, "q did not quit")
    }

    /// The footer follows the focus and, at every width from 60 columns, says how to quit and
    /// how to get help; `?` lists every key; a narrow terminal names its panes in a line of tabs
    /// with each index's hit count, so a toggled facet shows its effect there.
    @Test func keysHelpAndTabsAtEightyColumns() throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let fedsearch = DaemonProcess.binDirectory.appendingPathComponent("fedsearch").path
        let t = try TerminalSession([fedsearch, "--socket", d.socketPath, "dashboard"], cols: 80, rows: 24)
        let ready = try t.waitFor { s in
            s.joined().contains("movies ok") && s.contains { $0.hasPrefix("search · genres · supplier · movies 2,000") }
        }
        #expect(ready.ok, "no tabs naming the panes:\n\(ready.screen.joined(separator: "\n"))")
        let footer = { (s: [String]) in s.last { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? "" }
        // Typing: Space types, so no "Space toggle"; quit and help by keys that do not type.
        #expect(footer(ready.screen).contains("^C quit") && footer(ready.screen).contains("F1 help"), "\(footer(ready.screen))")
        #expect(!footer(ready.screen).contains("Space toggle"))
        try t.send(["Tab"])
        let facet = try t.waitFor { s in footer(s).contains("Space toggle") && footer(s).contains("q quit") && footer(s).contains("? help")
        }
        #expect(facet.ok, "the footer of a facet pane: \(footer(facet.screen))")
        // Toggling a genre: the movies tab's count changes, and the filters line says what is on.
        try t.send(["Down", "Space"])
        let toggled = try t.waitFor { s in
            s.contains { $0.hasPrefix("filters: genres: Comedy") } && s.contains { $0.hasPrefix("search · genres · supplier · movies 619") }
        }
        #expect(toggled.ok, "a toggle's effect is not shown:\n\(toggled.screen.joined(separator: "\n"))")
        try t.send(["?"], literal: true)
        let help = try t.waitFor { s in
            s.contains { $0.contains("Keys — any key closes") } && s.contains { $0.contains("toggle the facet value") }
        }
        #expect(help.ok, "? did not open the keys:\n\(help.screen.joined(separator: "\n"))")
        try t.send(["x"], literal: true)
        let closed = try t.waitFor { s in !s.contains { $0.contains("Keys — any key closes") } }
        #expect(closed.ok)
        #expect(t.isRunning, "a key closes the overlay and does nothing else")
        for cols in [60, 72, 89] {
            try t.resize(cols: cols, rows: 24)
            let fitted = try t.waitFor { s in s.first?.count == cols && footer(s).contains("q quit") && footer(s).contains("? help") }
            #expect(fitted.ok, "at \(cols) columns: \(footer(fitted.screen))")
        }
        try t.send(["q"], literal: true)
        #expect(poll(seconds: 10) { !t.isRunning }, "q did not quit")
    }

    /// A facet list keeps its order while the user works in it (a toggled value stays under
    /// the cursor), shows its position, and shows its top once the focus leaves.
    @Test func facetListsKeepTheirOrderAndShowTheirPosition() throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let t = try Self.twoIndexDashboard(d)
        try t.send(["Tab"])
        for _ in 0..<25 { try t.send(["Down"]) }
        let moved = try t.waitFor { s in s.contains { $0.contains("26/41 ↓") } }
        #expect(moved.ok, "the list's position is not shown:\n\(moved.screen.joined(separator: "\n"))")
        // The value under the cursor, then toggled: it stays on its row.
        let row = try #require(moved.screen.firstIndex { $0.contains("↑ 26/41") }) - 1
        // The genres pane's row ("│[ ] Western   252│", 28 cells wide at 140 columns), less its count.
        var value = String(moved.screen[row].prefix(28).dropFirst(5).dropLast())
        while let last = value.last, last.isNumber || last == "," || last == " " { value.removeLast() }
        try t.send(["Space"])
        let toggled = try t.waitFor { s in s.count > row && s[row].contains("[x] \(value)") }
        #expect(toggled.ok, "'\(value)' left its row when toggled:\n\(toggled.screen.joined(separator: "\n"))")
        // Focus elsewhere: the list shows its top (the selected value first), Drama and Comedy in view.
        try t.send(["Tab"])
        let top = try t.waitFor { s in
            s.contains { $0.contains("[x] \(value)") } && s.contains { $0.contains("[ ] Drama") } && s.contains { $0.contains("1/41 ↓") }
        }
        #expect(top.ok, "the unfocused list does not show its top:\n\(top.screen.joined(separator: "\n"))")
        try t.send(["C-c"])
        #expect(poll(seconds: 10) { !t.isRunning })
    }

    /// `/` in a facet pane searches its values on the daemon; Enter toggles the one found;
    /// Esc ends the search. A click focuses a pane and toggles the value under it.
    @Test func facetValueSearchAndTheMouse() throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let t = try Self.twoIndexDashboard(d)
        try t.send(["Tab", "/"])
        try t.send(["sci"], literal: true)
        let found = try t.waitFor { s in s.contains { $0.hasPrefix("│/ sci") } && s.contains { $0.hasPrefix("│[ ] Science Fiction") } }
        #expect(found.ok, "the facet search found nothing:\n\(found.screen.joined(separator: "\n"))")
        // The genres pane (from its top border to its bottom one) lists only what starts with "sci".
        let top = found.screen.firstIndex { $0.hasPrefix("┌─ genres") } ?? 0
        let pane = found.screen[top...].prefix { !$0.hasPrefix("└") }
        #expect(pane.filter { $0.hasPrefix("│[ ] ") }.allSatisfy { $0.contains("Science") }, "only values starting with 'sci': \(pane)")
        try t.send(["Enter"])
        let toggled = try t.waitFor { s in
            s.contains { $0.hasPrefix("filters: genres: Science Fiction") } && s.contains { $0.contains("64 results") }
        }
        #expect(toggled.ok, "Enter did not toggle the value found:\n\(toggled.screen.joined(separator: "\n"))")
        try t.send(["Escape"])
        let ended = try t.waitFor { s in !s.contains { $0.hasPrefix("│/ sci") } && s.contains { $0.hasPrefix("│[ ] Drama") } }
        #expect(ended.ok, "Esc did not end the search:\n\(ended.screen.joined(separator: "\n"))")
        #expect(ended.screen.contains { $0.hasPrefix("filters: genres: Science Fiction") }, "Esc in a search keeps the filters")
        // A click (X10 mouse report: button, column, row, each + 32, 1-based) on the row of Drama.
        try t.send(["Tab"])
        let unfocused = try t.waitFor { s in s.contains { $0.hasPrefix("│[ ] Drama") } && s.last { !$0.isEmpty }?.contains("q quit") == true
        }
        let row = try #require(unfocused.screen.firstIndex { $0.hasPrefix("│[ ] Drama") })
        func report(_ button: Int, x: Int, y: Int) -> String {
            "\u{1B}[M" + String(UnicodeScalar(UInt8(32 + button))) + String(UnicodeScalar(UInt8(33 + x)))
                + String(UnicodeScalar(UInt8(33 + y)))
        }
        try t.send([report(0, x: 6, y: row) + report(3, x: 6, y: row)], literal: true)
        let clicked = try t.waitFor { s in
            s.contains {
                $0.contains("filters: genres: Science Fiction · genres: Drama")
                    || $0.contains("filters: genres: Drama · genres: Science Fiction")
            }
        }
        #expect(clicked.ok, "the click did not toggle Drama:\n\(clicked.screen.joined(separator: "\n"))")
        try t.send(["C-c"])
        #expect(poll(seconds: 10) { !t.isRunning })
    }

    /// Under each hit, the line that says why it matched: "Julius Caesar" for "star wa"
    /// matched in its extract; `--show movies:genres` picks the attribute.
    @Test func aSecondLineSaysWhyAHitMatched() throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let fedsearch = DaemonProcess.binDirectory.appendingPathComponent("fedsearch").path
        for (show, expected) in [([String](), "wa"), (["--show", "movies:genres"], "Drama")] {
            let t = try TerminalSession(
                [fedsearch, "--socket", d.socketPath, "dashboard", "--index", "movies"] + show, cols: 120, rows: 50)
            #expect(try t.waitFor { $0.joined().contains("movies ok") }.ok)
            try t.send(["star wa"], literal: true)
            let shown = try t.waitFor { s in
                guard let i = s.firstIndex(where: { $0.contains("│Julius Caesar ") }), i + 1 < s.count else { return false }
                return s[i + 1].contains("│  ") && s[i + 1].contains(expected)
            }
            #expect(shown.ok, "\(show): no line saying why Julius Caesar matched:\n\(shown.screen.joined(separator: "\n"))")
            try t.send(["C-c"])
            #expect(poll(seconds: 10) { !t.isRunning })
        }
    }

    /// The merged list pages like the columns; a daemon that goes away leaves the columns
    /// marked stale with the socket named; started before the daemon, the dashboard waits for it.
    @Test func mergedPagingStaleResultsAndWaitingForTheDaemon() throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        d.halt()
        let fedsearch = DaemonProcess.binDirectory.appendingPathComponent("fedsearch").path
        let t = try TerminalSession([fedsearch, "--socket", d.socketPath, "dashboard"], cols: 140, rows: 40)
        let waiting = try t.waitFor { s in s.contains { $0.contains("waiting for fedsearchd on \(d.socketPath)") } }
        #expect(waiting.ok, "no waiting screen:\n\(waiting.screen.joined(separator: "\n"))")
        #expect(t.isRunning, "it waits instead of exiting")
        try d.start()
        #expect(try t.waitFor { $0.joined().contains("movies ok") }.ok, "it did not come up once the daemon started")
        // Tab to the merged list (search, genres, supplier, movies, products, merged) and page down.
        for _ in 0..<5 { try t.send(["Tab"]) }
        // The merged pane's position ("↑ 31/4,000 ↓" in its border) passes its first page of 20.
        func mergedPosition(_ s: [String]) -> Int {
            s.compactMap { line -> Int? in
                guard let r = line.range(of: "/4,000") else { return nil }
                return Int(String(line[..<r.lowerBound].reversed().prefix { $0.isNumber || $0 == "," }.reversed().filter(\.isNumber)))
            }.max() ?? 0
        }
        var paged = (ok: false, screen: [String]())
        for _ in 0..<10 where !paged.ok {
            try t.send(["PageDown"])
            paged = try t.waitFor(seconds: 1) { mergedPosition($0) > 30 }
        }
        #expect(paged.ok, "the merged list stopped at its first page:\n\(paged.screen.joined(separator: "\n"))")
        try t.send(["/"])
        try t.send(["zzqqxv"], literal: true)
        let empty = try t.waitFor { s in s.contains { $0.contains("no results in any index") } }
        #expect(empty.ok, "the empty merged list does not say so:\n\(empty.screen.joined(separator: "\n"))")
        d.halt(kill: true)
        let stale = try t.waitFor { s in
            s.contains { $0.contains("stale: daemon unreachable") && $0.contains(d.socketPath) }
                && s.contains { $0.contains("stale") && $0.contains("results") }
        }
        #expect(stale.ok, "results of a lost daemon are not marked stale:\n\(stale.screen.joined(separator: "\n"))")
        try t.send(["C-c"])
        #expect(poll(seconds: 10) { !t.isRunning })
    }

    /// docs/CLIENT.md's whole small app (`Examples/movie-browser`): typed records drawn by a
    /// terminal controller of its own, the selected movie's cast, a click, and `?`.
    @Test func theMovieBrowserOfTheGuide() throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let app = DaemonProcess.binDirectory.appendingPathComponent("fedsearch-movies").path
        let t = try TerminalSession([app, "--socket", d.socketPath], cols: 100, rows: 20)
        try t.send(["alien"], literal: true)
        let typed = try t.waitFor { s in s.contains { $0.contains("│Annihilation (2018)  Horror, Science Fiction") } }
        #expect(typed.ok, "the typed records are not shown:\n\(typed.screen.joined(separator: "\n"))")
        let row = try #require(typed.screen.firstIndex { $0.contains("│Annihilation (2018)") })
        try t.send(
            [
                "\u{1B}[M \(UnicodeScalar(UInt8(33 + 5)))\(UnicodeScalar(UInt8(33 + row)))\u{1B}[M#\(UnicodeScalar(UInt8(33 + 5)))\(UnicodeScalar(UInt8(33 + row)))"
            ],
            literal: true)
        let clicked = try t.waitFor { s in s.contains { $0.hasPrefix("selected: Annihilation (2018) with Natalie Portman") } }
        #expect(clicked.ok, "the click did not select the movie:\n\(clicked.screen.joined(separator: "\n"))")
        try t.send(["?"], literal: true)
        #expect(try t.waitFor { s in s.contains { $0.contains("Keys — any key closes") } }.ok, "? in the list shows the keys")
        try t.send(["x"], literal: true)
        try t.send(["q"], literal: true)
        #expect(poll(seconds: 10) { !t.isRunning }, "q in the list quits")
    }

    @Test func wideAndAccentedTitlesKeepTheColumnsAligned() throws {
        // Titles with accents, CJK (two cells each) and emoji, in a tiny index.
        let docs = [
            #"{"objectID":"1","title":"Amélie","genre":"Comedy"}"#,
            #"{"objectID":"2","title":"千と千尋の神隠し Spirited Away","genre":"Animation"}"#,
            #"{"objectID":"3","title":"Crème brûlée 🍮 story","genre":"Comedy"}"#,
        ].joined(separator: "\n")
        let d = try DaemonProcess(
            config: [
                "searchables": [
                    "films": ["data": "films.ndjson", "searchableAttributes": ["title"], "attributesForFaceting": ["genre"]],
                    "more": ["data": "films.ndjson", "searchableAttributes": ["title"], "attributesForFaceting": ["genre"]],
                ]
            ], files: ["films.ndjson": docs])
        defer { d.stop() }
        let fedsearch = DaemonProcess.binDirectory.appendingPathComponent("fedsearch").path
        let t = try TerminalSession([fedsearch, "--socket", d.socketPath, "dashboard"], cols: 120, rows: 24)
        let shown = try t.waitFor { $0.contains { $0.contains("千と千尋") } && $0.contains { $0.contains("Amélie") } }
        #expect(shown.ok, "\(shown.screen.joined(separator: "\n"))")
        // Every line of the frame is exactly as wide as the terminal, in cells.
        let widths = shown.screen.filter { !$0.isEmpty }.map { line in line.reduce(0) { $0 + (Self.isWide($1) ? 2 : 1) } }
        #expect(widths.allSatisfy { $0 <= 120 }, "\(zip(widths, shown.screen).filter { $0.0 > 120 })")
        let boxLines = shown.screen.filter { $0.hasPrefix("│") && $0.contains("千") }
        for line in boxLines {
            #expect(line.reduce(0) { $0 + (Self.isWide($1) ? 2 : 1) } == 120, "misaligned: \(line)")
        }
        try t.send(["C-c"])
        #expect(poll(seconds: 10) { !t.isRunning })
    }

    /// Live: the empty query's answer follows the writes. A document imported by
    /// `fedsearch import` shows in the column and the merged list, marked `+`, without a
    /// keystroke; Ctrl-L turns live off (the badge goes, the next import does not show until
    /// a search) and on again.
    @Test func aLiveDashboardShowsAnImportedDocumentWithoutAKeystroke() throws {
        var rng = SystemRandomNumberGenerator()
        let dataDir = try DaemonProcess.makeDirectory().appendingPathComponent("data").path
        let d = try DaemonProcess(
            config: IncrementalWriteTests().config(dataDir: dataDir),
            files: ["films.ndjson": LiveSubscriptionTests.initialFilms(50, &rng)])
        defer { LiveSubscriptionTests.tearDown(d, dataDir: dataDir) }
        let fedsearch = DaemonProcess.binDirectory.appendingPathComponent("fedsearch").path
        let t = try TerminalSession(
            [fedsearch, "--socket", d.socketPath, "dashboard", "--index", "films", "--facets", "genre"], cols: 120, rows: 30)
        let footer = { (s: [String]) in s.last { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? "" }
        let ready = try t.waitFor { s in s.joined().contains("films ok") && footer(s).contains("● live") }
        #expect(ready.ok, "the dashboard did not come up live:\n\(ready.screen.joined(separator: "\n"))")

        /// Imports one film with more votes than any (first of the empty query's answer).
        func importFilm(_ id: String, _ title: String) throws {
            let file = try DaemonProcess.makeDirectory().appendingPathComponent("one.ndjson")
            var film = IncrementalWriteTests.film(0, &rng, id: id)
            film["title"] = .string(title)
            film["votes"] = 100_000
            try JSONWriter.string(.object(film)).write(to: file, atomically: true, encoding: .utf8)
            let imported = try runBuilt("fedsearch", ["import", "films", file.path, "--socket", d.socketPath])
            #expect(imported.status == 0, "\(imported.err)")
        }
        try importFilm("z1", "Quasar Zebra")
        let shown = try t.waitFor { s in s.contains { $0.contains("+ Quasar Zebra") } }
        #expect(shown.ok, "the imported film did not show:\n\(shown.screen.joined(separator: "\n"))")
        // The mark goes after a moment; the film stays.
        let settled = try t.waitFor(seconds: 10) { s in
            s.contains { $0.contains("Quasar Zebra") } && !s.contains { $0.contains("+ Quasar") }
        }
        #expect(settled.ok, "the mark stayed:\n\(settled.screen.joined(separator: "\n"))")

        try t.send(["C-l"])
        let off = try t.waitFor { s in !footer(s).contains("● live") && footer(s).contains("go live") }
        #expect(off.ok, "Ctrl-L did not turn live off:\n\(off.screen.joined(separator: "\n"))")
        try importFilm("z2", "Nebula Yak")
        Thread.sleep(forTimeInterval: 1.5)
        #expect(!(try t.screen()).contains { $0.contains("Nebula Yak") }, "not live, yet the write showed")
        try t.send(["C-l"])
        let on = try t.waitFor { s in s.contains { $0.contains("Nebula Yak") } && footer(s).contains("● live") }
        #expect(on.ok, "Ctrl-L did not go live again:\n\(on.screen.joined(separator: "\n"))")
        try t.send(["C-c"])
        #expect(poll(seconds: 10) { !t.isRunning })
    }

    /// Whether a character takes two cells (the CJK and emoji of the test's titles).
    static func isWide(_ c: Character) -> Bool {
        guard let v = c.unicodeScalars.first?.value else { return false }
        return (0x3040...0x9FFF).contains(v) || (0x1F300...0x1FAFF).contains(v)
    }
}
