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
    /// The number before "results" in the first line that has one (the movies column's stats).
    static func firstCount(_ screen: [String]) -> Int? {
        for line in screen {
            guard let r = line.range(of: " results in") ?? line.range(of: " result in") else { continue }
            let digits = line[..<r.lowerBound].reversed().prefix { $0.isNumber || $0 == "," }.reversed().filter(\.isNumber)
            return Int(String(digits))
        }
        return nil
    }

    @Test func typingFacetingResizingAndADaemonThatGoesAway() throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let fedsearch = DaemonProcess.binDirectory.appendingPathComponent("fedsearch").path
        let t = try TerminalSession([fedsearch, "--socket", d.socketPath, "dashboard", "--index", "movies,products",
                                     "--facets", "genres,supplier"], cols: 140, rows: 40)
        let ready = try t.waitFor { $0.joined().contains("movies ok") }
        #expect(ready.ok, "the dashboard did not come up:\n\(ready.screen.joined(separator: "\n"))")
        #expect(ready.screen.contains { $0.contains("─ movies ─") } && ready.screen.contains { $0.contains("─ products ─") })
        #expect(ready.screen.contains { $0.contains("genres (movies)") } && ready.screen.contains { $0.contains("supplier (products)") })

        try t.send(["star wa"], literal: true)
        let typed = try t.waitFor { s in s.contains { $0.contains("> star wa") } && s.contains { $0.contains("Star Wars: The Force Awakens") } }
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
        let narrow = try t.waitFor { s in s.first?.hasPrefix("┌─ Search ─") == true && s.first?.count == 70 && s.contains { $0.contains("pane ") } }
        #expect(narrow.ok, "the narrow terminal was not redrawn:\n\(narrow.screen.joined(separator: "\n"))")
        try t.resize(cols: 140, rows: 40)
        let wide = try t.waitFor { s in s.first?.count == 140 && s.contains { $0.contains("─ Merged ─") } }
        #expect(wide.ok, "the wide terminal was not redrawn:\n\(wide.screen.joined(separator: "\n"))")

        d.halt(kill: true)
        let gone = try t.waitFor { $0.contains { $0.contains("daemon unreachable") } }
        #expect(gone.ok, "a dead daemon is not shown:\n\(gone.screen.joined(separator: "\n"))")
        try d.start()
        try t.send(["/"])
        try t.send(["r"], literal: true)
        let back = try t.waitFor { s in s.contains { $0.contains("> star war") } && s.contains { $0.contains("movies ok") } }
        #expect(back.ok, "the dashboard did not reach the restarted daemon:\n\(back.screen.joined(separator: "\n"))")
        #expect(t.isRunning)

        try t.send(["Tab"])
        try t.send(["q"], literal: true)
        #expect(poll(seconds: 10) { !t.isRunning }, "q did not quit")
    }

    @Test func wideAndAccentedTitlesKeepTheColumnsAligned() throws {
        // Titles with accents, CJK (two cells each) and emoji, in a tiny index.
        let docs = [
            #"{"objectID":"1","title":"Amélie","genre":"Comedy"}"#,
            #"{"objectID":"2","title":"千と千尋の神隠し Spirited Away","genre":"Animation"}"#,
            #"{"objectID":"3","title":"Crème brûlée 🍮 story","genre":"Comedy"}"#,
        ].joined(separator: "\n")
        let d = try DaemonProcess(config: ["searchables": [
            "films": ["data": "films.ndjson", "searchableAttributes": ["title"], "attributesForFaceting": ["genre"]],
            "more": ["data": "films.ndjson", "searchableAttributes": ["title"], "attributesForFaceting": ["genre"]],
        ]], files: ["films.ndjson": docs])
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

    /// Whether a character takes two cells (the CJK and emoji of the test's titles).
    static func isWide(_ c: Character) -> Bool {
        guard let v = c.unicodeScalars.first?.value else { return false }
        return (0x3040...0x9FFF).contains(v) || (0x1F300...0x1FAFF).contains(v)
    }
}
