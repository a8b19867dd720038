import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol
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
        let known = await DaemonRequest.indices(on: connection)
        var indices: [IndexInfo] = []
        for name in options.indices ?? known.map(\.name) {
            guard let info = known.first(where: { $0.name == name }) else {
                fail("unknown index '\(name)'; the daemon serves: \(known.map(\.name).joined(separator: ", "))", usage: DashboardOptions.usage)
            }
            indices.append(info)
        }
        guard !indices.isEmpty else { fail("the daemon serves no index") }
        var facetNames: [String] = []
        if let asked = options.facets {
            let all = Set(indices.flatMap(\.facets))
            for f in asked where !all.contains(f) {
                fail("no index shown facets on '\(f)'; facets: \(indices.flatMap(\.facets).joined(separator: ", "))",
                     usage: DashboardOptions.usage)
            }
            facetNames = asked
        } else {
            for i in indices { if let f = i.facets.first, !facetNames.contains(f) { facetNames.append(f) } }
        }
        let dashboard = Dashboard(connection: connection, indices: indices, facetNames: facetNames, hitsPerPage: options.hitsPerPage)
        await dashboard.run()
        connection.close()
        return 0
    }
}

extension DaemonRequest {
    /// The indices the daemon serves, with their facet attributes (the command fails with a
    /// clear message when the daemon cannot be reached).
    static func indices(on connection: DaemonConnection) async -> [IndexInfo] {
        let frames: [Frame]
        do { frames = try await connection.roundTrip(.indices) } catch {
            fail("\(error)")
        }
        guard case .info(_, "indices", let payload)? = frames.first else { fail("the daemon did not list its indices: \(frames)") }
        return (payload["indices"]?.arrayValue ?? []).compactMap { v in
            guard let o = v.objectValue, let name = o["name"]?.stringValue else { return nil }
            return IndexInfo(name: name, attributesForFaceting: (o["attributesForFaceting"]?.arrayValue ?? []).compactMap(\.stringValue))
        }
    }
}
