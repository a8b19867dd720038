import FederatedSearchCore
import FederatedSearchHTTP
import FederatedSearchServer
import Synchronization

extension FuzzTargets {
    /// One HTTP request through the HTTP API on the demo catalog: the input's first line is
    /// `METHOD TARGET` (the target with its query string), the rest its body. The answer must
    /// be one whole response, or a stream's head, chunks and end; a JSON response's body must
    /// parse, and every event of a stream must carry one frame of JSON.
    static func http(_ bytes: [UInt8]) {
        let newline = bytes.firstIndex(of: 0x0A) ?? bytes.count
        let first = String(decoding: bytes[..<newline], as: UTF8.self).split(separator: " ", maxSplits: 1)
        let methods: [String: HTTPRequest.Method] = [
            "GET": .get, "HEAD": .head, "POST": .post, "PUT": .put, "DELETE": .delete, "PATCH": .patch, "OPTIONS": .options,
        ]
        let method = first.first.flatMap { methods[String($0)] } ?? .post
        let target = first.count > 1 ? String(first[1]) : "/1/indexes/*/queries"
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let body = newline < bytes.count ? Array(bytes[(newline + 1)...]) : []
        let request = HTTPRequest(
            method: method, path: String(parts[0]), query: parts.count > 1 ? String(parts[1]) : "",
            headers: ["origin": "https://fuzz.example"], body: body)
        let api = AlgoliaAPI(
            config: HTTPConfig(listen: .tcp(host: "127.0.0.1", port: 7700)), maxBodyBytes: 1 << 20,
            startedAt: "2026-01-01T00:00:00Z")
        let core = ServerCore(catalog: demoCatalog)
        let outputs = Mutex<[HTTPOutput]>([])
        blocking { await api.respond(request, core: core) { output in outputs.withLock { $0.append(output) } } }
        check(outputs.withLock { $0 }, request)
    }

    private static func check(_ outputs: [HTTPOutput], _ request: HTTPRequest) {
        func fail(_ why: String) -> Never { fatalError("\(request.method.rawValue) \(request.path): \(why)") }
        guard let first = outputs.first else { fail("no answer") }
        switch first {
        case .whole(let r):
            guard outputs.count == 1 else { fail("output after a whole response") }
            guard (100...599).contains(r.status) else { fail("status \(r.status)") }
            if r.header("Content-Type")?.hasPrefix("application/json") == true, request.method != .head,
                (try? JSONParser.parse(r.wholeBody)) == nil
            {
                fail("a JSON response that does not parse: \(String(decoding: r.wholeBody.prefix(300), as: UTF8.self))")
            }
        case .head:
            guard case .end? = outputs.last else { fail("a stream that does not end") }
            for o in outputs.dropFirst().dropLast() {
                guard case .chunk(let c) = o else { fail("a stream's middle is not chunks") }
                let text = String(decoding: c, as: UTF8.self)
                guard text.hasPrefix("data: "), text.hasSuffix("\n\n"),
                    (try? JSONParser.parse(String(text.dropFirst(6).dropLast(2)))) != nil
                else { fail("an event that is not one frame of JSON: \(text.prefix(300))") }
            }
        case .chunk, .end:
            fail("a stream without a head")
        }
    }
}
