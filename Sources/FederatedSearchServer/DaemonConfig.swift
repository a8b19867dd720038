import FederatedSearchCore
import FederatedSearchProtocol

/// The daemon's configuration, read from a JSON file.
///
/// Every error names the JSON path of the bad field and why; unknown keys are errors, so a
/// typo is never silently ignored. See README.md for the format.
public struct DaemonConfig: Sendable {
    /// Path of the Unix socket.
    public var socketPath: String
    /// File mode of the socket (default 0660).
    public var socketMode: UInt32
    /// Longest accepted request line, in bytes.
    public var maxLineBytes: Int
    /// Deadline for a source when neither the request nor the searchable sets one.
    public var defaultTimeoutMs: Int
    /// Log level name.
    public var logLevel: Log.Level
    /// How long SIGTERM waits for running searches before stopping anyway.
    public var drainTimeoutMs: Int
    /// Per-connection and global limits.
    public var limits: Limits = Limits()
    /// When a failing index is suspended, and for how long.
    package var circuitBreaker = SourceHealth.Settings()
    /// Where embedded indices keep their durable stores (`dataDir`, resolved); nil: in memory only.
    public var dataDirectory: String?
    /// How long the loop keeps polling for events after the last one before it sleeps, while
    /// polling pays off (`busyPollMicros`, default 0: never polls, the daemon does not spin).
    /// A trade of CPU for latency that the daemon's loop (its `SpinPolicy`) makes only for
    /// clients that send back to back (docs/PERFORMANCE.md).
    public var busyPollMicros = DaemonConfig.defaultBusyPollMicros
    /// The default `busyPollMicros`.
    public static let defaultBusyPollMicros = 0
    /// The HTTP listener (nil: none).
    public var http: HTTPConfig?
    /// How long after its last write a durable index counts as at rest and is folded into
    /// one segment, in milliseconds (`settleAfterMs`, default 2000; 0: never).
    public var settleAfterMs = DaemonConfig.defaultSettleAfterMs
    /// The default `settleAfterMs`.
    public static let defaultSettleAfterMs = 2000
    /// The fewest documents a durable index's segment is built with for it to be saved to a
    /// file beside the store, so that a restart opens it instead of rebuilding it
    /// (`segmentFileMinDocuments`, default 10000; smaller indices rebuild in milliseconds).
    public var segmentFileMinDocuments = DaemonConfig.defaultSegmentFileMinDocuments
    /// The default `segmentFileMinDocuments`.
    public static let defaultSegmentFileMinDocuments = 10_000
    /// The most live documents a merge of a durable index's segments makes one segment of
    /// (`maxSegmentDocuments`): it bounds the memory a merge holds beside the index it serves;
    /// an index larger than this is searched as several segments.
    public var maxSegmentDocuments = DaemonConfig.defaultMaxSegmentDocuments
    /// The default `maxSegmentDocuments`.
    public static let defaultMaxSegmentDocuments = 4_000_000

    /// Resource limits, each configurable under `limits`.
    public struct Limits: Sendable, Equatable {
        /// Connections served at once; one more gets `too_many_connections` and is closed.
        /// (Over HTTP, an idle keep-alive connection is closed first to make room, oldest idle
        /// first.)
        public var maxConnections = 1024
        /// HTTP connections from one client address (loopback included) served at once; past
        /// it, that address's oldest idle one is closed to make room, or the new one refused.
        public var maxConnectionsPerAddress = 512
        /// Searches in flight at once on one connection (running or waiting for a slot).
        /// While a connection has this many, the daemon stops reading its requests until one
        /// ends: the client is pushed back, not refused.
        public var maxRequestsPerConnection = 16
        /// Searches running at once in the whole daemon; more wait in a queue, oldest first.
        /// Bounds the work (and the answers queued) however many clients pile up.
        public var maxRunningSearches = 256
        /// Searches that may wait for one of `maxRunningSearches`; one more gets
        /// `too_many_requests`. The default lets every connection of `maxConnections` have
        /// `maxRequestsPerConnection` in flight (with the defaults, nothing is ever refused).
        public var maxQueuedSearches = 16_384
        /// A connection with nothing running that sends nothing for this long is closed (0: never).
        public var idleTimeoutMs = 300_000
        /// A request must arrive whole within this long of its first byte (0: never): a socket
        /// line, or an HTTP request's headers and body (its connection's first request: within
        /// this long of the connection's opening). A client that trickles a byte at a time
        /// keeps the idle timer from firing, not this one; it gets `request_timeout` and is closed.
        public var requestReadTimeoutMs = 60_000
        /// Bytes of unfinished socket lines held for all clients together. A read that would
        /// pass it ends its connection with `input_backlog` (the line is dropped, never half
        /// acted on), so clients that stall mid-line cannot make the daemon hold
        /// `maxConnections` × `maxLineBytes`.
        public var maxTotalPendingInputBytes = 64 << 20
        /// Unsent output a connection may hold before the daemon stops reading its requests;
        /// past twice this in complete answers unread, its later searches are refused with
        /// `output_backlog` (the earliest outstanding one still gets its answer).
        public var maxPendingOutputBytes = 1 << 20
        /// A connection whose answers wait this long for the client to read any of them is
        /// closed (0: never): a client that stopped reading holds no memory for good.
        public var writeTimeoutMs = 30_000
        /// Output queued for all clients together; past it, no search starts (they wait in the
        /// queue) until clients have read below it. With `maxAnswerBytes`, bounds the daemon's
        /// memory for answers whatever the number of clients.
        public var maxTotalPendingOutputBytes = 256 << 20
        /// The largest answer to one search; a larger one is ended with `answer_too_large`
        /// (its frames sent before stay valid).
        public var maxAnswerBytes = 64 << 20
        /// Live subscriptions (`subscribe`) one connection may hold at once; one more gets
        /// `too_many_requests`.
        public var maxSubscriptionsPerConnection = 100
        /// Live subscriptions the daemon holds at once, all connections together; each keeps
        /// only its last page per source and merged list.
        public var maxSubscriptions = 10_000

        public init() {}

        package static func decode(_ object: JSONObject) throws(SearchError) -> Limits {
            var r = FieldReader(object, path: "limits")
            var l = Limits()
            if let v = try r.int("maxConnections", in: 1...1_000_000) { l.maxConnections = v }
            if let v = try r.int("maxConnectionsPerAddress", in: 1...1_000_000) { l.maxConnectionsPerAddress = v }
            if let v = try r.int("maxRequestsPerConnection", in: 1...100_000) { l.maxRequestsPerConnection = v }
            if let v = try r.int("maxSubscriptionsPerConnection", in: 0...100_000) { l.maxSubscriptionsPerConnection = v }
            if let v = try r.int("maxSubscriptions", in: 0...10_000_000) { l.maxSubscriptions = v }
            if let v = try r.int("maxRunningSearches", in: 1...1_000_000) { l.maxRunningSearches = v }
            if let v = try r.int("maxQueuedSearches", in: 0...100_000_000) { l.maxQueuedSearches = v }
            if let v = try r.int("idleTimeoutMs", in: 0...86_400_000) { l.idleTimeoutMs = v }
            if let v = try r.int("requestReadTimeoutMs", in: 0...86_400_000) { l.requestReadTimeoutMs = v }
            if let v = try r.int("maxTotalPendingInputBytes", in: (1 << 20)...(1 << 40)) { l.maxTotalPendingInputBytes = v }
            if let v = try r.int("maxPendingOutputBytes", in: 4096...(1 << 30)) { l.maxPendingOutputBytes = v }
            if let v = try r.int("writeTimeoutMs", in: 0...86_400_000) { l.writeTimeoutMs = v }
            if let v = try r.int("maxTotalPendingOutputBytes", in: (1 << 20)...(1 << 40)) { l.maxTotalPendingOutputBytes = v }
            if let v = try r.int("maxAnswerBytes", in: 4096...(1 << 34)) { l.maxAnswerBytes = v }
            try r.rejectUnknownKeys()
            return l
        }
    }
    /// The searchables, in config order.
    public var searchables: [SearchableConfig]
    /// The folder relative data paths are resolved against (the config file's folder).
    public var baseDirectory: String

    /// One searchable's configuration.
    public struct SearchableConfig: Sendable {
        public var name: String
        /// The backend kind (`embedded` by default).
        public var kind: String
        /// This searchable's default deadline.
        public var timeoutMs: Int?
        /// Who may search and write it.
        public var access: AccessPolicy
        /// How often live subscriptions search it again when nothing tells the daemon of its
        /// changes (another backend than a durable index); nil: never.
        public var pollIntervalMs: Int?
        /// The backend's own options (everything but `backend`, `timeoutMs`, `access` and
        /// `pollIntervalMs`).
        public var options: JSONObject
        /// The JSON path of this searchable's object, for error messages.
        public var path: String

        /// Reads a searchable's object (as under `searchables` in the config file, or as
        /// `createIndex` gives it): `backend`, `timeoutMs` and `access`, the rest being the
        /// backend's options.
        package static func decode(name: String, _ object: JSONObject, path: String) throws(SearchError) -> SearchableConfig {
            var o = object
            var sr = FieldReader(o, path: path)
            let kind = try sr.string("backend") ?? "embedded"
            let timeout = try sr.int("timeoutMs", in: 1...600_000)
            let access =
                try sr.objectValue("access").map { (a: JSONObject) throws(SearchError) in
                    try AccessPolicy.decode(a, path: "\(path).access")
                } ?? AccessPolicy()
            let poll = try sr.int("pollIntervalMs", in: 10...86_400_000)
            o["backend"] = nil
            o["timeoutMs"] = nil
            o["access"] = nil
            o["pollIntervalMs"] = nil
            return SearchableConfig(
                name: name, kind: kind, timeoutMs: timeout, access: access, pollIntervalMs: poll, options: o, path: path)
        }
    }

    /// Parses a config document. `baseDirectory` resolves relative paths.
    public static func parse(_ bytes: [UInt8], baseDirectory: String) throws(SearchError) -> DaemonConfig {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw SearchError(.invalidJSON, "config: \(error.reason) at byte \(error.offset)")
        }
        guard case .object(let root) = value else {
            throw SearchError(.invalidField, "config: expected an object, got \(value.typeName)")
        }
        var r = FieldReader(root)
        let socketPath = try r.string("socket") ?? "/tmp/fedsearchd/fedsearchd.sock"
        let modeText = try r.string("socketMode") ?? "0660"
        guard let mode = UInt32(modeText, radix: 8), mode <= 0o777 else {
            throw SearchError(.invalidField, "socketMode: expected an octal file mode like \"0660\", got '\(modeText)'")
        }
        let maxLine = try r.int("maxLineBytes", in: 1024...(64 << 20)) ?? ProtocolVersion.defaultMaxLineBytes
        let defaultTimeout = try r.int("defaultTimeoutMs", in: 1...600_000) ?? 1000
        let drain = try r.int("drainTimeoutMs", in: 0...600_000) ?? 10_000
        let busyPoll = try r.int("busyPollMicros", in: 0...10_000) ?? Self.defaultBusyPollMicros
        let limits = try r.objectValue("limits").map { (o: JSONObject) throws(SearchError) in try Limits.decode(o) } ?? Limits()
        let breaker =
            try r.objectValue("circuitBreaker").map { (o: JSONObject) throws(SearchError) in
                try SourceHealth.Settings.decode(o)
            } ?? SourceHealth.Settings()
        let dataDir = try r.string("dataDir")
        let settle = try r.int("settleAfterMs", in: 0...86_400_000) ?? Self.defaultSettleAfterMs
        let maxSegment = try r.int("maxSegmentDocuments", in: 1000...Int(Int32.max)) ?? Self.defaultMaxSegmentDocuments
        let segmentFileMinimum =
            try r.int("segmentFileMinDocuments", in: 1...Int(Int32.max)) ?? Self.defaultSegmentFileMinDocuments
        let httpObject = try r.objectValue("http")
        let levelName = try r.string("logLevel") ?? "info"
        guard let level = Log.Level(name: levelName) else {
            throw SearchError(.invalidField, "logLevel: expected debug, info, warning or error, got '\(levelName)'")
        }
        guard let searchablesObject = try r.objectValue("searchables") else {
            throw SearchError(.missingField, "searchables: required field is missing")
        }
        try r.rejectUnknownKeys()
        guard !searchablesObject.isEmpty else { throw SearchError(.invalidField, "searchables: must not be empty") }
        var searchables: [SearchableConfig] = []
        for e in searchablesObject {
            let path = "searchables.\(e.key)"
            guard Self.isValidIndexName(e.key) else {
                throw SearchError(.invalidField, "\(path): index names use letters, digits, '-', '_' and '.' (1 to 64)")
            }
            guard case .object(let o) = e.value else {
                throw SearchError(.invalidField, "\(path): expected an object, got \(e.value.typeName)")
            }
            searchables.append(try SearchableConfig.decode(name: e.key, o, path: path))
        }
        var config = DaemonConfig(
            socketPath: socketPath, socketMode: mode, maxLineBytes: maxLine, defaultTimeoutMs: defaultTimeout,
            logLevel: level, drainTimeoutMs: drain, limits: limits, searchables: searchables, baseDirectory: baseDirectory)
        config.circuitBreaker = breaker
        config.dataDirectory = dataDir.map { config.resolve($0) }
        config.busyPollMicros = busyPoll
        config.settleAfterMs = settle
        config.segmentFileMinDocuments = segmentFileMinimum
        config.maxSegmentDocuments = maxSegment
        let base = config
        config.http = try httpObject.map { (o: JSONObject) throws(SearchError) in try HTTPConfig.decode(o, resolve: base.resolve) }
        return config
    }

    package static func isValidIndexName(_ name: String) -> Bool {
        guard (1...64).contains(name.utf8.count) else { return false }
        return name.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x5F
                || b == 0x2E
        }
    }

    /// Resolves a path from the config against its folder.
    public func resolve(_ path: String) -> String {
        path.hasPrefix("/") ? path : (baseDirectory.isEmpty ? path : "\(baseDirectory)/\(path)")
    }
}
