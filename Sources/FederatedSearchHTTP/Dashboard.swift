/// The web dashboard's files, built into the binary (`Dashboard/`, embedded by SwiftPM): no
/// file is fetched from anywhere at run time.
package enum Dashboard {
    /// The files by URL name, with their content types.
    static let files: [String: (type: String, bytes: [UInt8])] = [
        "index.html": ("text/html; charset=utf-8", PackageResources.index_html),
        "dashboard.js": ("text/javascript; charset=utf-8", PackageResources.dashboard_js),
        "render.js": ("text/javascript; charset=utf-8", PackageResources.render_js),
        "dashboard.css": ("text/css; charset=utf-8", PackageResources.dashboard_css),
    ]

    /// The response for `/NAME`.
    package static func file(_ name: String) -> HTTPResponse {
        guard let f = files[name] else { return .error(404, "no such file: /\(name)", code: .unknownRoute) }
        return HTTPResponse(status: 200, headers: [("Content-Type", f.type), ("Cache-Control", "no-cache")], body: f.bytes)
    }
}
