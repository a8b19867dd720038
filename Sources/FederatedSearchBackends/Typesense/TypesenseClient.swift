import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FederatedSearchCore

/// The `typesense` backend as a ``SearchClient``: a collection of a Typesense server searched
/// through its REST API (`GET /collections/{collection}/documents/search`).
///
/// ``map(query:)`` builds a ``TypesenseRequest``, ``search(_:)`` sends it over the shared
/// ``HTTPTransport`` (connections reused; cancelling the task cancels the request; the
/// request's own timeout is the time left before the deadline), and ``map(results:)`` reads
/// the answer with ``TypesenseResponse``. Errors are source errors: `backend_http_error` for
/// a non-2xx status (with Typesense's `message`; never the API key), `backend_bad_response`
/// naming the path that failed, `backend_error` when the server cannot be reached, `timeout`,
/// and `invalid_filter` for a filter Typesense cannot express.
public struct TypesenseClient: SearchClient {
    /// The backend's answer: the parsed body and the request it answers.
    public struct Answer: Sendable {
        /// The parsed JSON answer.
        public var body: JSONValue
        /// The request it answers (paging, facets and tags for the mapping).
        public var request: TypesenseRequest
    }

    /// The searchable's name, prefixed to error messages.
    public let name: String
    /// The backend's options.
    public let config: TypesenseConfig
    private let transport: HTTPTransport

    /// A client with its own connections to the server (up to `config.maxConnections`).
    public init(name: String, config: TypesenseConfig) {
        self.name = name
        self.config = config
        transport = HTTPTransport(maxConnections: config.maxConnections)
    }

    public var description: SearchableDescription {
        SearchableDescription(
            kind: Typesense.kind, documentCount: nil, searchableAttributes: config.queryBy,
            attributesForFaceting: config.facetBy ?? [])
    }

    public func map(query: SearchQuery) throws -> TypesenseRequest {
        do throws(SearchError) { return try TypesenseRequest(query: query, config: config) } catch {
            throw SearchError(error.code, "\(name): \(error.message)")
        }
    }

    public func search(_ request: TypesenseRequest) async throws -> Answer {
        let urlRequest = try self.urlRequest(request)
        let (data, status) = try await transport.perform(urlRequest, name: name)
        let body = try? JSONParser.parse([UInt8](data))
        guard (200..<300).contains(status) else {
            var message = "\(name): HTTP \(status) from GET \(HTTPTransport.redacted(urlRequest.url))"
            if case .object(let o)? = body, case .string(let m)? = o["message"] { message += ": \(m)" }
            throw SearchError(.backendHTTPError, message)
        }
        guard let body else { throw SearchError(.backendBadResponse, "\(name): the answer is not JSON") }
        return Answer(body: body, request: request)
    }

    public func map(results answer: Answer) throws -> SearchResults {
        do throws(SearchError) { return try TypesenseResponse.results(answer.body, request: answer.request) } catch {
            throw SearchError(error.code, "\(name): \(error.message)")
        }
    }

    /// The HTTP request: the search URL with percent-encoded parameters, the API key header,
    /// and a timeout of the time left before the deadline.
    func urlRequest(_ request: TypesenseRequest) throws(SearchError) -> URLRequest {
        let query = request.items.map { "\($0.name)=\(StringTemplate.percentEncode($0.value))" }.joined(separator: "&")
        guard let url = URL(string: config.searchURL.absoluteString + "?" + query) else {
            throw SearchError(.backendError, "\(name): cannot build the search URL")
        }
        var r = URLRequest(url: url)
        r.httpMethod = "GET"
        r.setValue(config.apiKey.value, forHTTPHeaderField: "X-TYPESENSE-API-KEY")
        r.setValue("application/json", forHTTPHeaderField: "Accept")
        r.timeoutInterval = HTTPTransport.timeoutInterval(until: request.deadline)
        return r
    }
}

/// The `typesense` backend kind.
public enum Typesense {
    /// The kind's name in the config's `backend` field.
    public static let kind = "typesense"

    /// Builds the backend from its config options (see ``TypesenseConfig``).
    public static func make(
        _ config: BackendConfig, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SearchError) -> ClientSearchable<TypesenseClient> {
        ClientSearchable(TypesenseClient(name: config.name, config: try TypesenseConfig(config, environment: environment)), name: config.name)
    }
}
