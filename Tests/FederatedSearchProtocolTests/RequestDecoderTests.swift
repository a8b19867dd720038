import Testing
import FederatedSearchCore
@testable import FederatedSearchProtocol

extension Request.Operation {
    /// The search, if this is one.
    fileprivate var searchRequest: SearchRequest? {
        if case .search(let s) = self { return s }
        return nil
    }

    /// The target of a cancel.
    fileprivate var cancelTarget: String? {
        if case .cancel(let target) = self { return target }
        return nil
    }
}

/// Requests decode into typed operations; every failure has a code, a path, and the id when
/// one was readable.
struct RequestDecoderTests {
    func decode(_ s: String) -> Result<Request, RequestError> { RequestDecoder.decode(Array(s.utf8)) }

    /// The error `s` is refused with, nil if it decodes.
    func refusal(_ s: String) -> RequestError? {
        if case .failure(let e) = decode(s) { return e }
        return nil
    }

    @Test func decodesASearchWithEverything() throws {
        let r = try decode(
            #"{"id":"q1","op":"search","query":"star wars","indices":["movies","products"],"params":{"hitsPerPage":3,"facets":["genres"]},"perIndex":{"movies":{"filters":"year > 2000"}},"timeoutMs":200}"#
        ).get()
        let s = try #require(r.operation.searchRequest, "not a search")
        #expect(r.id == "q1")
        #expect(s.indices == ["movies", "products"])
        #expect(s.timeoutMs == 200)
        #expect(s.params.hitsPerPage == 3)
        let movies = try s.parameters(for: "movies")
        #expect(movies.hitsPerPage == 3)
        #expect(movies.filter == .numeric(attribute: "year", op: .greaterThan, value: 2000))
        #expect(try s.parameters(for: "products").filter == nil)
    }

    @Test func opDefaultsToSearchAndIdMayBeANumber() throws {
        let r = try decode(#"{"id":7,"query":"x"}"#).get()
        #expect(r.opName == "search")
        // An integer id is another id than the string of its digits, and is written back as
        // an integer; a string id stays a string.
        let s = try decode(#"{"id":"7","query":"x"}"#).get()
        #expect(r.id != s.id)
        #expect(String(decoding: Frame.pong(id: r.id, protocolVersion: 1, version: "v").line(), as: UTF8.self).hasPrefix(#"{"id":7,"#))
        #expect(String(decoding: Frame.pong(id: s.id, protocolVersion: 1, version: "v").line(), as: UTF8.self).hasPrefix(#"{"id":"7","#))
        #expect(try FrameDecoder.decode(Array(Frame.pong(id: r.id, protocolVersion: 1, version: "v").line().dropLast())).id == r.id)
        // A cancel names an integer id the same way.
        let target = try #require(try decode(#"{"id":"c","op":"cancel","target":7}"#).get().operation.cancelTarget, "not a cancel")
        #expect(target == r.id)
        // ... and the reply names it as an integer, both ways.
        let reply = Frame.cancelAccepted(id: "c", target: target)
        #expect(String(decoding: reply.line(), as: UTF8.self).contains(#""target":7"#))
        #expect(try FrameDecoder.decode(Array(reply.line().dropLast())) == reply)
        let again = try decode(String(decoding: Request(id: "c", operation: .cancel(target: target)).line().dropLast(), as: UTF8.self))
            .get()
        #expect(again.operation == .cancel(target: target))
    }

    @Test func idsMayNotHoldControlCharacters() throws {
        let e = try #require(refusal(#"{"id":"a\u0001b","query":"x"}"#), "accepted")
        #expect(e.error.code == .invalidField)
        #expect(e.error.message.contains("id"))
    }

    @Test(arguments: [
        (#"nope"#, "invalid_json", nil as String?),
        (#"5"#, "invalid_request", nil),
        (#"{"id":"a","op":"fly"}"#, "unknown_op", "a"),
        (#"{"id":"a","op":"cancel"}"#, "missing_field", "a"),
        (#"{"id":"a","indices":[]}"#, "invalid_field", "a"),
        (#"{"id":"a","indices":["m","m"]}"#, "invalid_field", "a"),
        (#"{"id":"a","timeoutMs":0}"#, "invalid_field", "a"),
        (#"{"id":"a","perIndex":{"m":{"page":"x"}}}"#, "invalid_field", "a"),
        (#"{"id":"a","extra":1}"#, "unknown_field", "a"),
        (#"{"id":{"x":1}}"#, "invalid_field", nil),
        // Found by the fuzzer (make fuzz): a number id too large for an integer trapped the
        // conversion and took the daemon down.
        (#"{"id":1e300,"query":"x"}"#, "invalid_field", nil),
        (#"{"id":-9.3e18}"#, "invalid_field", nil),
        (#"{"id":1.5}"#, "invalid_field", nil),
        (#"{"id":"a","op":"ping","query":"x"}"#, "unknown_field", "a"),
    ])
    func badRequestsGetCodes(line: String, code: String, id: String?) {
        switch decode(line) {
        case .success(let r): Issue.record("decoded \(r)")
        case .failure(let e):
            #expect(e.error.code.rawValue == code, "\(line): \(e.error)")
            #expect(e.id == id)
        }
    }

    /// Small requests that would make huge answers are refused, naming the field: markup
    /// copied into every highlighted value, and sources without bound.
    @Test func parametersThatMultiplyTheAnswerAreBounded() throws {
        let long = String(repeating: "x", count: SearchParameters.maxMarkupBytes + 1)
        for key in ["highlightPreTag", "highlightPostTag", "snippetEllipsisText"] {
            guard case .failure(let e) = decode(#"{"id":"a","query":"x","params":{"\#(key)":"\#(long)"}}"#) else {
                Issue.record("\(key) accepted")
                continue
            }
            #expect(e.error.code == .invalidField)
            #expect(e.error.message.hasPrefix("params.\(key):"), "\(e.error.message)")
        }
        let fits = String(repeating: "x", count: SearchParameters.maxMarkupBytes)
        #expect((try? decode(#"{"query":"x","params":{"highlightPreTag":"\#(fits)"}}"#).get()) != nil)
        let aliases = (0...RequestDecoder.maxTargets).map { #"{"index":"movies","as":"m\#($0)"}"# }.joined(separator: ",")
        let e = try #require(
            refusal(#"{"id":"a","query":"x","indices":[\#(aliases)]}"#), "\(RequestDecoder.maxTargets + 1) sources accepted")
        #expect(e.error.code == .invalidField)
        #expect(e.error.message.hasPrefix("indices:"), "\(e.error.message)")
    }

    @Test func perIndexOverrideErrorsNameTheIndex() throws {
        let e = try #require(refusal(#"{"perIndex":{"movies":{"hitsPerPage":-1}}}"#), "accepted")
        #expect(e.error.message.hasPrefix("perIndex.movies.hitsPerPage"))
    }
}
