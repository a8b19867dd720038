import FederatedSearchCore
import FederatedSearchProtocol
import FederatedSearchServer
import Synchronization

/// The socket's federated search over HTTP: `POST /1/federated` answers one JSON document,
/// `POST /1/federated/stream` the same frames as the socket, as server-sent events, each
/// index's the moment it answers.
extension AlgoliaAPI {
    /// The body as the socket's search request (`op` may be left out), with the indices a
    /// key may search when it names none.
    func federatedRequest(_ x: Exchange) -> Result<Request, HTTPResponse> {
        switch bodyObject(x) {
        case .failure(let r): return .failure(r)
        case .success(let o): return federatedRequest(x, body: o)
        }
    }

    /// ``federatedRequest(_:)`` of a body already read.
    func federatedRequest(_ x: Exchange, body object: JSONObject) -> Result<Request, HTTPResponse> {
        var body = object
        if body["op"] == nil { body["op"] = "search" }
        guard body["op"] == "search" else {
            return .failure(.error(SearchError(.invalidField, "op: the federated endpoints answer only search")))
        }
        let request: Request
        switch RequestDecoder.decode(object: body) {
        case .failure(let e): return .failure(.error(x.core.catalog.refusal(of: e, peer: x.peer)))
        case .success(let r): request = r
        }
        guard case .search(var search) = request.operation else {
            return .failure(.error(SearchError(.invalidField, "op: the federated endpoints answer only search")))
        }
        if !config.keys.isEmpty {
            if let targets = search.targets {
                for t in targets where !x.allows(.search, index: t.index, keysConfigured: true) {
                    return .failure(.error(403, "this API key may not search index '\(t.index)'", code: .forbidden))
                }
            } else {
                let allowed = x.core.catalog.entries.map(\.id.index).filter { x.allows(.search, index: $0, keysConfigured: true) }
                guard !allowed.isEmpty else { return .failure(.error(403, "this API key may search no index", code: .forbidden)) }
                search.targets = allowed.map { SearchTarget(index: $0) }
            }
        }
        search.restriction = x.secured?.restriction
        return .success(Request(id: request.id, operation: .search(search)))
    }

    /// Runs a federated search, superseding the older requests of its session; `emit` gets
    /// each frame's line until the request is superseded, then its `done superseded`.
    func runFederated(_ request: Request, _ x: Exchange, emit: @escaping @Sendable (OutgoingLine) -> Void) async {
        guard case .search(let search) = request.operation, let session = search.session, let seq = search.seq else {
            await x.core.answer(request, peer: x.peer, placement: x.placement, emit: emit)
            return
        }
        // Sessions are a client's own: scoped by its key (a secured key's apart from its parent's
        // and its siblings') and its address, so no other client can supersede its requests.
        let key = x.key.map { "key \($0.position)" + (x.secured.map { " " + $0.signedQuery } ?? "") } ?? ""
        let scope = key + "@" + (x.request.clientAddress ?? "")
        let superseded = OutgoingLine(FrameWriter.done(id: request.id, status: .superseded, sources: [], ms: 0))
        let ticket: HTTPSessions.Ticket
        switch sessions.begin(scope: scope, session: session, seq: seq) {
        case .started(let t): ticket = t
        case .superseded: return emit(superseded)
        case .refused(let e): return emit(OutgoingLine(Frame.error(id: request.id, index: nil, error: e).line()))
        }
        defer { sessions.end(scope: scope, session: session, ticket) }
        let core = x.core
        let id = request.id
        let work = Task(executorPreference: x.executor) {
            await core.answer(request, peer: x.peer, placement: x.placement) { line in
                ticket.forward(line, isLast: FrameWriter.isDone(line.firstPiece, id: id), emit)
            }
        }
        ticket.attach { work.cancel() }
        await withTaskCancellationHandler {
            await work.value
        } onCancel: {
            work.cancel()
        }
        ticket.endSuperseded(superseded, emit)
    }

    /// `POST /1/federated`: `{"results": {name: response}, "errors": {name: {code, message}},
    /// "merged": {...}, "status", "sources", "ms"}`, the frames' contents in one document.
    func federated(_ x: Exchange) async -> HTTPResponse {
        var request: Request
        switch federatedRequest(x) {
        case .failure(let r): return r
        case .success(let r): request = r
        }
        request.id = nil
        let collector = LineCollector()
        await runFederated(request, x) { collector.append($0) }
        var results: [(String, OutgoingLine)] = []
        var errors = JSONObject()
        var merged: OutgoingLine?
        var done = JSONObject()
        for line in collector.lines {
            switch FramePayload.type(of: line) {
            case "results":
                if let r = FramePayload.namedResults(of: line) { results.append(r) }
            case "error":
                let e = FramePayload.error(of: line.bytes) ?? SearchError(.internalError, "an unreadable error frame")
                guard case .object(let o)? = try? JSONParser.parse(line.bytes), case .string(let name)? = o["index"] else {
                    return .error(e)
                }
                errors[name] = ["code": .string(e.code.rawValue), "message": .string(e.message)]
            case "merged": merged = FramePayload.members(of: line)
            case "done": done = FramePayload.object(of: line.bytes) ?? [:]
            default: break
            }
        }
        let size = results.reduce(256 + (merged?.count ?? 0)) { $0 + $1.1.count + $1.0.utf8.count + 4 }
        var out = LineBuilder(shares: size >= FrameWriter.sharedLineMinimum, capacity: size)
        out.text.append(contentsOf: #"{"results":{"#.utf8)
        for (i, r) in results.enumerated() {
            if i > 0 { out.text.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(r.0, into: &out.text)
            out.text.append(UInt8(ascii: ":"))
            out.append(r.1)
        }
        out.text.append(contentsOf: #"},"errors":"#.utf8)
        JSONWriter.write(.object(errors), into: &out.text)
        if let merged {
            out.text.append(contentsOf: #","merged":"#.utf8)
            out.append(merged)
        }
        for e in done {
            out.text.append(UInt8(ascii: ","))
            JSONWriter.writeString(e.key, into: &out.text)
            out.text.append(UInt8(ascii: ":"))
            JSONWriter.write(e.value, into: &out.text)
        }
        out.text.append(UInt8(ascii: "}"))
        return .json(200, out.finish())
    }

    /// `POST /1/federated/stream`: `text/event-stream`, one `data:` event per frame. The head
    /// waits for the first frame: a request that fails as a whole (an unknown index, a filter
    /// that does not parse) is answered with its HTTP status and error, as `/1/federated` does,
    /// not with 200 and a stream that never says `done`.
    func stream(_ x: Exchange, send: @escaping @Sendable (HTTPOutput) -> Void) async {
        let request: Request
        switch federatedRequest(x) {
        case .failure(var r):
            r.headers += x.headers
            return send(.whole(r))
        case .success(let r): request = r
        }
        let head = HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no"),
            ] + x.headers)
        let opening = StreamOpening()
        await runFederated(request, x) { line in
            switch opening.next() {
            case .refused: return
            case .open: break
            case .first:
                if FramePayload.type(of: line) == "error", let e = FramePayload.error(of: line.bytes),
                    FramePayload.object(of: line.bytes)?["index"] == nil
                {
                    var refusal = HTTPResponse.error(e)
                    refusal.headers += x.headers
                    opening.refuse()
                    return send(.whole(refusal))
                }
                send(.head(head))
            }
            send(.chunk(Self.event(line.bytes)))
        }
        switch opening.current {
        case .open: send(.end)
        case .refused: break
        case .first: send(.whole(.error(500, "the search ended without a frame", code: .internalError)))
        }
    }

    /// A frame's line as one server-sent event (frames hold no newline but their last byte).
    package static func event(_ line: [UInt8]) -> [UInt8] {
        var out = Array("data: ".utf8)
        out.reserveCapacity(line.count + 8)
        out.append(contentsOf: line.last == 0x0A ? line.dropLast() : line[...])
        out.append(contentsOf: "\n\n".utf8)
        return out
    }
}

/// Whether a stream's head has gone out: it waits for the first frame, which may turn the whole
/// answer into an error response instead.
final class StreamOpening: Sendable {
    enum Step { case first, open, refused }
    private let state = Mutex<Step>(.first)

    /// What the next frame finds: the first (it decides), an open stream, or a refused one.
    func next() -> Step {
        state.withLock { s in
            let now = s
            if s == .first { s = .open }
            return now
        }
    }

    /// The first frame refused the request: nothing more is sent.
    func refuse() { state.withLock { $0 = .refused } }

    /// Where the stream is: still waiting for a first frame, open, or refused.
    var current: Step { state.withLock { $0 } }
}

/// A live search over HTTP, as the transport starts it (see ``AlgoliaAPI/subscription(_:core:)``).
package struct HTTPSubscription: Sendable {
    /// The subscription's id in its frames (the body's `id`, else `live`).
    package var id: String
    package var search: SearchRequest
    package var minIntervalMs: Int
    /// The stream's head: `text/event-stream`, with the CORS headers.
    package var head: HTTPResponse
    /// A reconnection's `Last-Event-ID` (`TOKEN.SEQ`: the stream it had, the last update it
    /// took), for the transport to resume that subscription; nil for a new one.
    package var resume: (token: String, seq: Int)?

    /// The parts of a `Last-Event-ID` of the form `TOKEN.SEQ`; nil for any other value.
    package static func resumePoint(_ lastEventID: String?) -> (token: String, seq: Int)? {
        guard let value = lastEventID, let dot = value.lastIndex(of: "."), let seq = Int(value[value.index(after: dot)...]), seq >= 0
        else { return nil }
        let token = String(value[..<dot])
        guard !token.isEmpty, token.count <= 64, token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        return (token, seq)
    }
}

extension AlgoliaAPI {
    /// `POST /1/federated/subscribe`: the body of `/1/federated` with `minIntervalMs`, checked as
    /// that endpoint checks it (key, rights, the indices the key may search, a secured key's
    /// restriction), for the transport to subscribe; or the response that refuses it.
    package func subscription(_ request: HTTPRequest, core: ServerCore) -> Result<HTTPSubscription, HTTPResponse> {
        let x: Exchange
        switch admit(request, core: core, placement: nil, executor: nil) {
        case .answered(let response): return .failure(response)
        case .exchange(_, let exchange): x = exchange
        }
        var body: JSONObject
        // A browser's EventSource GETs: the body is the `request` parameter.
        let given =
            request.method == .get
            ? jsonObject(Array((URLForm.pairs(request.query).first { $0.key == "request" }?.value ?? "").utf8)) : bodyObject(x)
        switch given {
        case .failure(let r): return .failure(finished(r, request, x.headers))
        case .success(let o): body = o
        }
        var interval = RequestDecoder.defaultMinIntervalMs
        if let v = body["minIntervalMs"] {
            guard let n = v.intValue, (0...3_600_000).contains(n) else {
                return .failure(
                    finished(.error(SearchError(.invalidField, "minIntervalMs: expected an integer from 0 to 3600000")), request, x.headers)
                )
            }
            interval = n
            body["minIntervalMs"] = nil
        }
        let id = body["id"]?.stringValue ?? "live"
        body["id"] = .string(id)
        switch federatedRequest(x, body: body) {
        case .failure(let r): return .failure(finished(r, request, x.headers))
        case .success(let r):
            guard case .search(let search) = r.operation else {
                return .failure(.error(SearchError(.invalidField, "op: the federated endpoints answer only search")))
            }
            let head = HTTPResponse(
                status: 200,
                headers: [
                    ("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no"),
                ] + x.headers)
            return .success(
                HTTPSubscription(
                    id: id, search: search, minIntervalMs: interval, head: head,
                    resume: HTTPSubscription.resumePoint(request.header("last-event-id"))))
        }
    }
}
