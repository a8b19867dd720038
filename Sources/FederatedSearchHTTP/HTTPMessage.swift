import FederatedSearchCore
import FederatedSearchProtocol

/// One HTTP request as the listener read it: no socket, so the API can be tested on its own.
package struct HTTPRequest: Sendable {
    package enum Method: String, Sendable {
        case get = "GET"
        case head = "HEAD"
        case post = "POST"
        case put = "PUT"
        case delete = "DELETE"
        case patch = "PATCH"
        case options = "OPTIONS"
    }

    package var method: Method
    /// The path, not yet percent-decoded (segments are decoded one by one, so an encoded `/`
    /// stays inside its segment).
    package var path: String
    /// The query string after `?`, not decoded (empty: none).
    package var query: String
    /// Header values by lowercased name (the last of repeated headers). A transport may give
    /// only ``headersRead``, the ones the API reads.
    package var headers: [String: String]
    /// The headers the API reads.
    package static let headersRead = [
        "origin", "host", "x-algolia-api-key", "x-algolia-application-id", "access-control-request-headers", "content-type",
        "referer", "last-event-id",
    ]
    package var body: [UInt8]
    /// The client's address as text (`127.0.0.1`, `::1`), when the transport knows it.
    package var clientAddress: String?

    package init(
        method: Method, path: String, query: String = "", headers: [String: String] = [:], body: [UInt8] = [],
        clientAddress: String? = nil
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.clientAddress = clientAddress
    }

    /// A header's value (`name` lowercased).
    package func header(_ name: String) -> String? { headers[name] }
}

/// A whole response, or the head of a streamed one.
package struct HTTPResponse: Sendable {
    package var status: Int
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// A body too large to copy into one array (a page of large hits), sent in pieces as the
    /// client reads (``body`` is then empty): see ``OutgoingLine``.
    package var largeBody: OutgoingLine?

    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as one array, whichever way it is held.
    package var wholeBody: [UInt8] { largeBody?.bytes ?? body }

    /// A JSON response.
    package static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: body)
    }

    /// A JSON response of a line the server core answered with: held in pieces if large.
    package static func json(_ status: Int, _ body: OutgoingLine) -> HTTPResponse {
        guard body.count >= FrameWriter.sharedLineMinimum, !body.isWhole else { return json(status, body.bytes) }
        var r = json(status, [UInt8]())
        r.largeBody = body
        return r
    }

    package static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse { json(status, JSONWriter.bytes(value)) }

    /// An error in Algolia's shape, `{"message": ..., "status": N}`, with the daemon's stable
    /// error code beside them (every error response has one).
    package static func error(_ status: Int, _ message: String, code: ErrorCode) -> HTTPResponse {
        json(status, .object(["message": .string(message), "status": .number(Double(status)), "code": .string(code.rawValue)]))
    }

    /// The error response for a coded error: 4xx for what the client can fix, 5xx only for
    /// failures of the daemon or its backends (clients retry another host on 5xx).
    package static func error(_ e: SearchError) -> HTTPResponse { error(status(of: e.code), e.message, code: e.code) }

    package static func status(of code: ErrorCode) -> Int {
        switch code {
        case .unknownIndex, .unknownRequest: 404
        case .forbidden: 403
        case .tooManyRequests, .tooManyConnections, .outputBacklog: 429
        case .lineTooLong, .bodyTooLarge: 413
        case .unknownRoute: 404
        case .methodNotAllowed: 405
        case .timeout: 504
        case .shuttingDown, .suspended, .cancelled: 503
        case .backendError, .backendHTTPError, .backendBadResponse: 502
        case .internalError, .reloadFailed: 500
        default: 400
        }
    }

    /// The value of header `name` (case-insensitive).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// What the API hands the listener for one exchange: a whole response, or a stream (its head,
/// then chunks, then its end).
package enum HTTPOutput: Sendable {
    case whole(HTTPResponse)
    case head(HTTPResponse)
    case chunk([UInt8])
    case end
}

/// A response stands for the failure of a step that answers the exchange early.
extension HTTPResponse: Error {}
