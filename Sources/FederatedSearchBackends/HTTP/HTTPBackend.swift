import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import FederatedSearchCore

/// The `http` backend: an existing REST search endpoint, entirely described in JSON config
/// (see ``HTTPBackendConfig`` and ``HTTPResponseMapping``).
///
/// One `URLSession` per backend keeps connections to the host open across queries (at most
/// `maxConnections`). Each request's timeout is the time left before the query's deadline;
/// cancelling the query cancels the request. Failures are source errors:
/// `backend_http_error` (a non-2xx status), `backend_bad_response` (not JSON, or a mapping
/// path that failed), `backend_error` (the host cannot be reached), `timeout`.
public final class HTTPBackend: Searchable {
    public let name: String
    public let config: HTTPBackendConfig
    private let transport: HTTPTransport

    /// Builds the backend from its config options.
    public convenience init(_ config: BackendConfig) throws(SearchError) {
        self.init(name: config.name, config: try HTTPBackendConfig(config))
    }

    public init(name: String, config: HTTPBackendConfig) {
        self.name = name
        self.config = config
        transport = HTTPTransport(maxConnections: config.maxConnections)
    }

    public var description: SearchableDescription {
        SearchableDescription(
            kind: "http", documentCount: nil, searchableAttributes: [], attributesForFaceting: config.attributesForFaceting ?? [])
    }

    public func search(_ given: SearchQuery) async throws -> SearchResults {
        try Task.checkCancellation()
        var query = given
        if let faceted = config.attributesForFaceting.map(Set.init), let filter = query.parameters.filter {
            // Facet and tag conditions on attributes the service does not facet match nothing;
            // numeric ones go to the service, which knows its numeric attributes.
            let resolved = filter.resolved { condition in
                switch condition {
                case .numeric, .range: return true
                default: return condition.attributes.isSubset(of: faceted)
                }
            }
            switch resolved {
            case .nothing:
                return SearchResults(
                    page: query.parameters.page, hitsPerPage: query.parameters.hitsPerPage, query: query.text, index: name)
            case .everything: query.parameters.filter = nil
            case .filter(let f): query.parameters.filter = f
            }
        }
        let request = try makeRequest(query)
        let (data, status) = try await transport.perform(request, name: name)
        guard (200..<300).contains(status) else {
            throw SearchError(.backendHTTPError, "\(name): HTTP \(status) from \(config.method) \(Self.redacted(request.url))")
        }
        let answer: JSONValue
        do { answer = try JSONParser.parse([UInt8](data)) } catch {
            throw SearchError(.backendBadResponse, "\(name): the answer is not JSON (\(error))")
        }
        do {
            var results = try config.mapping.results(from: answer, query: query)
            results.index = name
            return results
        } catch { throw SearchError(error.code, "\(name): \(error.message)") }
    }

    /// The request for one query: the URL with percent-encoded values, the headers, the body,
    /// and a timeout of the time left before the deadline.
    func makeRequest(_ query: SearchQuery) throws(SearchError) -> URLRequest {
        let values = TemplateValues(query: query)
        let text = config.url.render(values, encode: StringTemplate.percentEncode)
        guard let url = URL(string: text) else {
            throw SearchError(.backendError, "\(name): the url template gave an invalid URL")
        }
        var request = URLRequest(url: url)
        request.httpMethod = config.method
        for h in config.headers { request.setValue(h.value.value, forHTTPHeaderField: h.name) }
        if let body = config.body {
            request.httpBody = Data(JSONWriter.bytes(body.render(values)))
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
        }
        if request.value(forHTTPHeaderField: "Accept") == nil { request.setValue("application/json", forHTTPHeaderField: "Accept") }
        request.timeoutInterval = Self.timeoutInterval(until: query.deadline)
        return request
    }

    /// The request's timeout: see ``HTTPTransport/timeoutInterval(until:)``.
    static func timeoutInterval(until deadline: ContinuousClock.Instant?) -> Double {
        HTTPTransport.timeoutInterval(until: deadline)
    }

    static func redacted(_ url: URL?) -> String { HTTPTransport.redacted(url) }
}
