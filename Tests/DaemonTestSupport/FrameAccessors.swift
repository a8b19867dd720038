import FederatedSearchCore
import FederatedSearchProtocol

/// A frame's parts as optionals, for `#require`: `let (status, sources) = try #require(frames.last?.doneValue, "no done")`
/// stops the test with the message when the frame is not the expected kind.
extension Frame {
    /// The results of a `results` frame.
    public var resultsValue: SearchResults? {
        if case .results(_, _, let r) = self { return r }
        return nil
    }

    /// The index a `results` frame answers for.
    public var resultsIndex: String? {
        if case .results(_, let index, _) = self { return index }
        return nil
    }

    /// The list of a `merged` frame.
    public var mergedValue: MergedResults? {
        if case .merged(_, let m) = self { return m }
        return nil
    }

    /// The status and the sources' reports of a `done` frame.
    public var doneValue: (status: DoneStatus, sources: [(name: String, report: SourceReport)])? {
        if case .done(_, let status, let sources, _) = self { return (status, sources) }
        return nil
    }

    /// The index (nil for the request's own error) and the error of an `error` frame.
    public var errorValue: (index: String?, error: SearchError)? {
        if case .error(_, let index, let e) = self { return (index, e) }
        return nil
    }

    /// The error of a request-level `error` frame (one that names no index).
    public var requestError: SearchError? {
        if case .error(_, nil, let e) = self { return e }
        return nil
    }

    /// The payload of an info frame (`indices`, `stats`, `written`, `documents`, ...), when
    /// its type is `type` (any type if nil).
    public func infoPayload(_ type: String? = nil) -> JSONObject? {
        if case .info(_, let t, let p) = self, type == nil || t == type { return p }
        return nil
    }
}
