// swift-tools-version:6.0
// FederatedSearch: a federated search daemon (fedsearchd), its CLI (fedsearch),
// the embedded engine and the InstantSearch-style client library.
import PackageDescription

let strict: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "FederatedSearch",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "fedsearchd", targets: ["fedsearchd"]),
        .executable(name: "fedsearch", targets: ["fedsearch"]),
        .library(name: "FederatedSearchCore", targets: ["FederatedSearchCore"]),
        .library(name: "FederatedSearchEngine", targets: ["FederatedSearchEngine"]),
        .library(name: "FederatedSearchClient", targets: ["FederatedSearchClient"]),
        .library(name: "InstantSearch", targets: ["InstantSearch"]),
        .library(name: "InstantSearchTerminal", targets: ["InstantSearchTerminal"]),
        .library(name: "FederatedSearchBackends", targets: ["FederatedSearchBackends"]),
        .library(name: "FederatedSearchPostgres", targets: ["FederatedSearchPostgres"]),
    ],
    targets: [
        // C library, reached through one system-library target; imported only by the event-loop module.
        .systemLibrary(
            name: "CLibevent",
            pkgConfig: "libevent_pthreads",
            providers: [.apt(["libevent-dev"])]
        ),
        // The one field of a libevent request that 2.1 has no accessor for (its HTTP version),
        // read from libevent's public http_struct.h in C, so Swift keeps the request opaque.
        .target(name: "CEventHTTPVersion"),
        // libsystemd: sd_notify, sd_listen_fds, the journal. Imported only by the daemon module.
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // libpq, PostgreSQL's client library. Imported only by the postgres backend module.
        .systemLibrary(
            name: "CLibpq",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // glibc declarations missing from Swift's Glibc module (malloc_trim, struct ucred).
        .systemLibrary(name: "CGlibcExtras"),
        // OpenSSL's libcrypto (libssl-dev): HMAC-SHA256 of secured API keys. Imported only by the
        // HTTP module.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // SQLite, for durable storage of embedded indices. Imported only by the storage module.
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Durable document storage for embedded indices (SQLite, WAL).
        .target(name: "FederatedSearchStorage", dependencies: ["FederatedSearchCore", "CSQLite"], swiftSettings: strict),
        // Core model: JSON values, queries, filters, results, the Searchable protocol, coded errors. No I/O.
        .target(name: "FederatedSearchCore", swiftSettings: strict),
        // The embedded engine: analysis, inverted index, matching, ranking, facets, highlighting.
        .target(name: "FederatedSearchEngine", dependencies: ["FederatedSearchCore"], swiftSettings: strict),
        // Fan-out with task groups, deadlines, cancellation, and pure merge functions.
        .target(name: "FederatedSearchFederation", dependencies: ["FederatedSearchCore"], swiftSettings: strict),
        // Wire protocol: request and frame types, NDJSON framing.
        .target(name: "FederatedSearchProtocol", dependencies: ["FederatedSearchCore"], swiftSettings: strict),
        // The event loop: libevent's loop, events, the one hand-off into a loop from other threads,
        // buffered sockets, listeners, the HTTP server's glue and the outgoing HTTP client's loop.
        // The only importer of CLibevent.
        .target(
            name: "FederatedSearchEventLoop", dependencies: ["FederatedSearchCore", "CLibevent", "CEventHTTPVersion"],
            swiftSettings: strict
        ),
        // Custom backends: the SearchClient mapping API, the http, typesense and fedsearchd kinds, and
        // their HTTP client (the event loop's outgoing HTTP for http://; URLSession for https).
        .target(
            name: "FederatedSearchBackends",
            dependencies: ["FederatedSearchCore", "FederatedSearchProtocol", "FederatedSearchClient", "FederatedSearchEventLoop"],
            swiftSettings: strict
        ),
        // The `postgres` kind: full-text search of a PostgreSQL table over a libpq connection pool.
        // The only importer of CLibpq.
        .target(
            name: "FederatedSearchPostgres", dependencies: ["FederatedSearchCore", "FederatedSearchBackends", "CLibpq"],
            swiftSettings: strict
        ),
        // The server core, with no socket and no network module: config, catalog, access rules,
        // search planning and execution, durable indices and their writers, and the in-process
        // request driver.
        .target(
            name: "FederatedSearchServer",
            dependencies: [
                "FederatedSearchCore", "FederatedSearchEngine", "FederatedSearchFederation",
                "FederatedSearchProtocol", "FederatedSearchStorage", "CGlibcExtras",
            ],
            swiftSettings: strict
        ),
        // The HTTP API with no socket: Algolia's REST API, the federated endpoints and the web
        // dashboard (its files built into the binary), on the server core.
        .target(
            name: "FederatedSearchHTTP",
            dependencies: [
                "FederatedSearchServer", "FederatedSearchCore", "FederatedSearchFederation", "FederatedSearchProtocol",
                "CCrypto",
            ],
            resources: [.embedInCode("Dashboard")],
            swiftSettings: strict
        ),
        // The daemon: the libevent loop, listeners, connections, inbox and systemd around the
        // server core.
        .target(
            name: "FederatedSearchDaemon",
            dependencies: [
                "FederatedSearchServer", "FederatedSearchHTTP", "FederatedSearchCore", "FederatedSearchEngine",
                "FederatedSearchFederation", "FederatedSearchProtocol", "FederatedSearchClient", "FederatedSearchBackends",
                "FederatedSearchPostgres", "FederatedSearchStorage", "FederatedSearchEventLoop", "CSystemd",
                "CGlibcExtras",
            ],
            swiftSettings: strict
        ),
        // Client library: socket client and streaming API.
        .target(
            name: "FederatedSearchClient", dependencies: ["FederatedSearchCore", "FederatedSearchProtocol"],
            swiftSettings: strict),
        // The blocking one-request-at-a-time socket client of the tests and the benchmark's raw
        // sets: not part of the library's API.
        .target(
            name: "SocketTestClient", dependencies: ["FederatedSearchClient", "FederatedSearchProtocol", "FederatedSearchCore"],
            swiftSettings: strict),
        // ncursesw (libncurses-dev, installed by scripts/install-deps.sh), for the terminal
        // controllers. Imported only by InstantSearchTerminal. No pkgConfig: its cflags are ones
        // SwiftPM refuses, and the module map names the libraries.
        .systemLibrary(name: "CNcurses"),
        // Built-in controllers that draw into terminal panes (ncursesw), for `fedsearch dashboard`.
        .target(
            name: "InstantSearchTerminal", dependencies: ["InstantSearch", "CNcurses", "FederatedSearchCore"],
            swiftSettings: strict),
        // The InstantSearch-style library: Observer, Searchers, FilterState, Interactors,
        // Controller protocols and their connections, on DaemonConnection.
        .target(
            name: "InstantSearch", dependencies: ["FederatedSearchClient", "FederatedSearchProtocol", "FederatedSearchCore"],
            swiftSettings: strict),
        .executableTarget(name: "fedsearchd", dependencies: ["FederatedSearchDaemon"], swiftSettings: strict),
        .executableTarget(
            name: "fedsearch",
            dependencies: ["FederatedSearchClient", "InstantSearch", "InstantSearchTerminal", "SearchCounter", "CustomSearchBox"],
            swiftSettings: strict),
        .executableTarget(
            name: "fedsearch-bench",
            dependencies: [
                "FederatedSearchEngine", "FederatedSearchClient", "FederatedSearchServer", "FederatedSearchDaemon",
                "InstantSearch", "FederatedSearchProtocol", "SocketTestClient",
            ],
            swiftSettings: strict
        ),
        // The real daemon plus fault-injecting backend kinds, for the integration tests only.
        .executableTarget(
            name: "fedsearchd-faults", dependencies: ["FederatedSearchDaemon", "FederatedSearchServer"], path: "Tests/FaultInjectionDaemon",
            swiftSettings: strict
        ),
        // The worked example of docs/CUSTOM_BACKENDS.md: a backend written with SearchClient,
        // and fedsearchd with it registered (used by the tests, and a template to copy).
        .target(
            name: "BookshelfBackend", dependencies: ["FederatedSearchBackends", "FederatedSearchCore"],
            path: "Examples/BookshelfBackend", swiftSettings: strict
        ),
        .executableTarget(
            name: "fedsearchd-bookshelf", dependencies: ["BookshelfBackend", "FederatedSearchDaemon", "FederatedSearchServer"],
            path: "Examples/bookshelf-daemon", exclude: ["bookshelf.json", "books.ndjson"], swiftSettings: strict
        ),
        // docs/CLIENT.md's examples: a custom widget (the search counter, shown in the dashboard)
        // and a search box customised by composition and one replaced (queries from a pipe).
        .target(
            name: "SearchCounter", dependencies: ["InstantSearch", "InstantSearchTerminal"], path: "Examples/SearchCounter",
            swiftSettings: strict),
        .target(
            name: "CustomSearchBox", dependencies: ["InstantSearch", "InstantSearchTerminal"],
            path: "Examples/CustomSearchBox", swiftSettings: strict),
        .executableTarget(
            name: "fedsearch-pipe", dependencies: ["CustomSearchBox", "InstantSearch", "FederatedSearchClient"],
            path: "Examples/fedsearch-pipe", swiftSettings: strict),
        .executableTarget(
            name: "fedsearch-movies",
            dependencies: [
                "InstantSearch", "InstantSearchTerminal", "FederatedSearchClient",
                "FederatedSearchCore",
            ],
            path: "Examples/movie-browser", swiftSettings: strict),
        .executableTarget(
            name: "fedsearch-two-indices", dependencies: ["InstantSearch", "FederatedSearchClient", "FederatedSearchCore"],
            path: "Examples/two-indices", swiftSettings: strict),
        // The embedded engine's in-process benchmark (the ../shared/bench/compare.py contract).
        .executableTarget(name: "fedsearch-bench-engine", dependencies: ["FederatedSearchEngine"], swiftSettings: strict),
        .testTarget(name: "FederatedSearchStorageTests", dependencies: ["FederatedSearchStorage"], swiftSettings: strict),
        .testTarget(
            name: "InstantSearchTerminalTests", dependencies: ["InstantSearchTerminal", "InstantSearch"],
            swiftSettings: strict),
        .testTarget(name: "InstantSearchTests", dependencies: ["InstantSearch", "FederatedSearchClient"], swiftSettings: strict),
        .testTarget(name: "FederatedSearchCoreTests", dependencies: ["FederatedSearchCore"], swiftSettings: strict),
        .testTarget(name: "FederatedSearchEngineTests", dependencies: ["FederatedSearchEngine"], swiftSettings: strict),
        .testTarget(
            name: "FederatedSearchFederationTests", dependencies: ["FederatedSearchFederation"],
            swiftSettings: strict),
        .testTarget(
            name: "FederatedSearchProtocolTests", dependencies: ["FederatedSearchProtocol"],
            swiftSettings: strict),
        // The server core without a socket: config, state machines, admission, merges, the request
        // path through RequestReplay.
        .testTarget(
            name: "FederatedSearchServerTests",
            dependencies: [
                "FederatedSearchServer", "FederatedSearchCore", "FederatedSearchProtocol", "FederatedSearchFederation",
                "FederatedSearchEngine",
            ],
            swiftSettings: strict),
        .testTarget(name: "FederatedSearchEventLoopTests", dependencies: ["FederatedSearchEventLoop"], swiftSettings: strict),
        // The HTTP API in process (no socket), on a server core over small embedded indices.
        .testTarget(
            name: "FederatedSearchHTTPTests", dependencies: ["FederatedSearchHTTP", "FederatedSearchServer", "FederatedSearchCore"],
            swiftSettings: strict),
        .testTarget(
            name: "FederatedSearchDaemonTests",
            dependencies: [
                "FederatedSearchDaemon", "FederatedSearchServer", "FederatedSearchClient", "FederatedSearchEngine",
                "SocketTestClient",
            ],
            swiftSettings: strict
        ),
        // The test HTTP search service (a Python script) and its launcher, for the backend tests.
        .target(
            name: "BackendTestSupport", path: "Tests/BackendTestSupport", exclude: ["search_server.py"],
            swiftSettings: strict),
        .testTarget(
            name: "FederatedSearchBackendsTests",
            dependencies: [
                "FederatedSearchBackends", "FederatedSearchProtocol", "FederatedSearchFederation", "FederatedSearchPostgres",
                "BookshelfBackend", "BackendTestSupport",
            ],
            swiftSettings: strict
        ),
        // The real daemon binary on a temporary socket and config, for the tests that need it.
        .target(
            name: "DaemonTestSupport",
            dependencies: ["FederatedSearchClient", "FederatedSearchCore", "FederatedSearchProtocol", "SocketTestClient"],
            path: "Tests/DaemonTestSupport",
            swiftSettings: strict
        ),
        // The client library's connection against the real daemon.
        .testTarget(
            name: "FederatedSearchClientTests",
            dependencies: [
                "FederatedSearchClient", "FederatedSearchCore", "FederatedSearchProtocol", "DaemonTestSupport", "BackendTestSupport",
                "SocketTestClient",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "FederatedSearchClient", "FederatedSearchProtocol", "FederatedSearchServer", "FederatedSearchDaemon",
                "BackendTestSupport", "DaemonTestSupport", "InstantSearch", "SocketTestClient",
            ],
            swiftSettings: strict
        ),
    ]
)

// `make fuzz` only (FEDSEARCH_FUZZ=1): the libFuzzer harness of Tests/Fuzz, built with
// `-sanitize=fuzzer` for every module it reaches (see docs/FUZZING.md). Not part of a normal
// build, whose executables have their own `main`.
if Context.environment["FEDSEARCH_FUZZ"] != nil {
    package.targets.append(
        .executableTarget(
            name: "fedsearch-fuzz",
            dependencies: [
                "FederatedSearchServer", "FederatedSearchHTTP", "FederatedSearchDaemon", "FederatedSearchEngine", "FederatedSearchProtocol",
                "FederatedSearchCore",
            ],
            path: "Tests/Fuzz", exclude: ["seeds", "request.dict"], swiftSettings: strict
        ))
}
