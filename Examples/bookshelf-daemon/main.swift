#if canImport(Glibc)
import Glibc
#endif
import BookshelfBackend
import FederatedSearchDaemon
import FederatedSearchServer

// `fedsearchd-bookshelf`: fedsearchd with one more backend kind. This is the whole of what
// a Swift-coded backend needs: register a factory under a kind name, then run the daemon.
// A config names the kind like a built-in one: {"backend": "example.bookshelf", "books": "books.ndjson"}.
var registry = BackendRegistry.standard
registry.register(Bookshelf.kind) { context in try Bookshelf.make(context.backendConfig) }
exit(DaemonMain.run(arguments: CommandLine.arguments, registry: registry))
