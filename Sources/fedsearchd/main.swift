#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchDaemon

// fedsearchd: everything lives in FederatedSearchDaemon; this main only hands over the
// command line. It runs no main-actor work, so the loop thread and the query tasks never
// wait on the main thread.
exit(DaemonMain.run(arguments: CommandLine.arguments))
