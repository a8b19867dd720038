import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
import InstantSearch
import InstantSearchTerminal
#if canImport(Glibc)
import Glibc
#endif

/// `fedsearch dashboard`: asks the daemon which indices it serves and what they facet on,
/// checks the options against that, then runs the ``Dashboard`` until the user quits.
enum DashboardCommand {
    @MainActor
    static func run(_ args: ArraySlice<String>, socketPath: String) async -> Int32 {
        let options = DashboardOptions(args, socketPath: socketPath)
        guard isatty(0) == 1, isatty(1) == 1 else {
            fail("the dashboard needs a terminal (standard input and output); for scripts use `fedsearch search`")
        }
        let connection = DaemonConnection(path: options.socketPath)
        // With no daemon yet, the screen says so and the dashboard waits for it, as it does
        // when the daemon goes away later.
        var screen: Screen?
        let known: [IndexInfo]
        if let answered = try? await DaemonRequest.indices(from: connection) {
            known = answered
        } else {
            let waiting = Screen()
            guard let answered = await waitForDaemon(connection, socketPath: options.socketPath, on: waiting) else {
                waiting.close()
                connection.close()
                return 0
            }
            known = answered
            screen = waiting
        }
        func refuse(_ message: String) -> Never {
            screen?.close()
            fail(message, usage: DashboardOptions.usage)
        }
        var indices: [IndexInfo] = []
        for name in options.indices ?? known.map(\.name) {
            guard let info = known.first(where: { $0.name == name }) else {
                refuse("unknown index '\(name)'; the daemon serves: \(known.map(\.name).joined(separator: ", "))")
            }
            indices.append(info)
        }
        guard !indices.isEmpty else { refuse("the daemon serves no index") }
        for name in options.show.keys where !indices.contains(where: { $0.name == name }) {
            refuse("--show: no index '\(name)' is shown; shown: \(indices.map(\.name).joined(separator: ", "))")
        }
        var facetNames: [String] = []
        if let asked = options.facets {
            let all = Set(indices.flatMap(\.facets))
            for f in asked where !all.contains(f) {
                refuse("no index shown facets on '\(f)'; facets: \(indices.flatMap(\.facets).joined(separator: ", "))")
            }
            facetNames = asked
        } else {
            for i in indices { if let f = i.facets.first, !facetNames.contains(f) { facetNames.append(f) } }
        }
        var trace: KeystrokeTrace?
        if let path = options.tracePath {
            guard let opened = KeystrokeTrace(path: path) else { refuse("--trace: cannot write '\(path)'") }
            trace = opened
        }
        let dashboard = Dashboard(
            connection: connection, indices: indices, facetNames: facetNames, hitsPerPage: options.hitsPerPage,
            screen: screen ?? Screen(), socketPath: options.socketPath, live: options.live)
        dashboard.trace = trace
        for column in dashboard.columns {
            guard let attributes = options.show[column.name] else { continue }
            if attributes.isEmpty { column.view.showsDetail = false } else { column.view.detailAttributes = attributes }
        }
        await dashboard.run()
        connection.close()
        return 0
    }

    /// Asks the daemon for its indices every 2 s until it answers, saying on `screen` what it
    /// waits for; nil if the user quits (q, Esc or Ctrl-C) meanwhile.
    @MainActor
    static func waitForDaemon(_ connection: DaemonConnection, socketPath: String, on screen: Screen) async -> [IndexInfo]? {
        var attempt = 0
        while true {
            attempt += 1
            var reason = ""
            do { return try await DaemonRequest.indices(from: connection) } catch { reason = "\(error)" }
            for tenth in stride(from: 20, to: 0, by: -1) {
                let (rows, cols) = screen.size
                screen.begin()
                let lines: [[(String, Style)]] = [
                    [("fedsearch dashboard", .bold)],
                    [],
                    [("waiting for fedsearchd on ", .normal), (socketPath, .bold)],
                    [("attempt \(attempt) failed: ", .dim), (reason, .dim)],
                    [("retrying in \(DisplayFormat.oneDecimal(Double(tenth) / 10)) s", .normal)],
                    [],
                    [("start it with `make run` (the demo) or `fedsearchd --config FILE`; ", .dim), ("q", .bold), (" quits", .dim)],
                ]
                for (i, line) in lines.enumerated() where 1 + i < rows { screen.putRuns(line, y: 1 + i, x: 2, width: cols - 4) }
                screen.show()
                while let key = screen.readKey() {
                    if key == .character("q") || key == .escape || key == .control("c") { return nil }
                }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}

extension DaemonRequest {
    /// The indices the daemon serves, with their facet attributes; throws when the daemon
    /// cannot be reached.
    static func indices(from connection: DaemonConnection) async throws -> [IndexInfo] {
        let frames = try await connection.roundTrip(.indices)
        guard case .info(_, "indices", let payload)? = frames.first else { fail("the daemon did not list its indices: \(frames)") }
        return (payload["indices"]?.arrayValue ?? []).compactMap { v in
            guard let o = v.objectValue, let name = o["name"]?.stringValue else { return nil }
            return IndexInfo(name: name, attributesForFaceting: (o["attributesForFaceting"]?.arrayValue ?? []).compactMap(\.stringValue))
        }
    }
}
