#if canImport(Glibc)
import Glibc
#endif
import FederatedSearchClient
import FederatedSearchCore
import FederatedSearchProtocol

/// `fedsearch`: query fedsearchd from the command line.
let defaultSocket = getenv("FEDSEARCH_SOCKET").map { String(cString: $0) } ?? "/tmp/fedsearchd/fedsearchd.sock"

let mainUsage = """
    usage: fedsearch [--socket PATH] COMMAND [ARGS]

    commands:
      search QUERY   search one or more indices (fedsearch search --help)
      watch QUERY    search, then print what changes in the answer as writes land
                     (the search's options, and --interval MS; fedsearch watch --help)
      dashboard [--index a,b] [--facets f,g]
                     a live multi-index search screen (fedsearch dashboard --help)
      facets INDEX FACET [PREFIX] [--query Q] [--filters EXPR] [--hits N]
                     facet values starting with PREFIX, counted under the query
      import INDEX FILE [--batch N] [--in-flight N]
                     add or replace documents (NDJSON or a JSON array), in durable batches
      get INDEX ID...    print stored documents
      delete INDEX ID... delete documents
      delete-by INDEX FILTER
                     delete the documents passing an Algolia filter
      settings INDEX [--set FILE]
                     print the index's settings, or lay FILE's settings over them (reindexes)
      create-index NAME [--settings FILE | --searchable FILE]
                     create an empty durable index, or one on another backend (FILE: a
                     searchable as in the config, e.g. typesense) (root or the daemon's user)
      delete-index NAME  delete an index made by create-index, with its data
      indices        list the indices the daemon serves
      stats          show the daemon's counters and latencies
      ping           check that the daemon answers
      reload         make the daemon re-read its config (root or the daemon's user)
      version        print this program's version (also --version)

    --socket PATH    the daemon's socket (default \(defaultSocket), or $FEDSEARCH_SOCKET)
    exit codes: 0 success, 1 a source or the daemon failed, 2 usage error
    """

let searchUsage = """
    usage: fedsearch search QUERY [--index a,b] [--facets f,g] [--filters EXPR] [--hits N] [--page N]
                                  [--timeout MS] [--json] [--socket PATH]

      QUERY            the text to search (quote it: "star wars"); "" matches everything
      --index a,b      indices to search, in priority order (default: all)
      --facets f,g     facets to count over all matches
      --filters EXPR   an Algolia filter, e.g. 'genres:Drama AND year >= 2000'
      --hits N         hits per page (default 10)
      --page N         page, from 1 (as the output numbers them)
      --timeout MS     deadline for each index
      --json           print the raw NDJSON frames instead of text
    """

func fail(_ message: String, usage: String? = nil) -> Never {
    writeToStandardError("fedsearch: \(message)\n")
    if let usage { writeToStandardError(usage + "\n") }
    exit(usage == nil ? 1 : 2)
}

func run() async -> Int32 {
    var args = CommandLine.arguments.dropFirst()
    var socketPath = defaultSocket
    // Global options before the command.
    while let first = args.first, first.hasPrefix("-") {
        if first == "--help" || first == "-h" {
            print(mainUsage)
            return 0
        }
        if first == "--version" {
            print("fedsearch \(FederatedSearchVersion.string)")
            return 0
        }
        if first == "--socket" {
            args = args.dropFirst()
            guard let p = args.first else { fail("--socket needs a value", usage: mainUsage) }
            socketPath = p
            args = args.dropFirst()
            continue
        }
        if first.hasPrefix("--socket=") {
            socketPath = String(first.dropFirst("--socket=".count))
            args = args.dropFirst()
            continue
        }
        fail("unknown option '\(first)'", usage: mainUsage)
    }
    guard let command = args.first else { fail("missing command", usage: mainUsage) }
    let rest = args.dropFirst()
    switch command {
    case "search":
        return await search(rest, socketPath: socketPath)
    case "watch":
        return await WatchCommand.run(rest, socketPath: socketPath)
    case "indices", "stats", "ping", "reload":
        let usage = "usage: fedsearch \(command) [--json] [--socket PATH]"
        let parsed = parseCommand(rest, valueOptions: ["socket"], flags: ["json"], usage: usage)
        guard parsed.positional.isEmpty else { fail("unexpected argument '\(parsed.positional[0])'", usage: usage) }
        return await simple(op: command, json: parsed.flags.contains("json"), socketPath: parsed.options["socket"] ?? socketPath)
    case "facets":
        return await facetValues(rest, socketPath: socketPath)
    case "dashboard":
        return await DashboardCommand.run(rest, socketPath: socketPath)
    case "import":
        return await ImportCommand.run(rest, socketPath: socketPath)
    case "get", "delete", "settings", "delete-by", "create-index", "delete-index":
        return await IndexCommands.run(command, rest, socketPath: socketPath)
    case "help":
        print(mainUsage)
        return 0
    case "version":
        print("fedsearch \(FederatedSearchVersion.string)")
        return 0
    default:
        let suggestion = NameSuggestion.closest(to: command, among: commandNames).map { "; did you mean '\($0)'?" } ?? ""
        fail("unknown command '\(command)'\(suggestion) (commands: \(commandNames.joined(separator: ", ")))", usage: mainUsage)
    }
}

/// Every command, for the suggestion after a mistyped one.
let commandNames = [
    "search", "watch", "facets", "dashboard", "indices", "stats", "ping", "reload", "import", "get", "delete", "delete-by",
    "settings", "create-index", "delete-index", "version", "help",
]

func simple(op: String, json: Bool, socketPath: String) async -> Int32 {
    let operation: Request.Operation
    switch op {
    case "indices": operation = .indices
    case "stats": operation = .stats
    case "reload": operation = .reload
    default: operation = .ping
    }
    let out = HumanOutput()
    var status: Int32 = 0
    for f in await DaemonRequest.run(operation, socketPath: socketPath, timeoutSeconds: 30) {
        if case .error = f { status = 1 }
        if json { print(JSONWriter.string(f.json())) } else { out.print(f) }
    }
    return status
}

func facetValues(_ args: ArraySlice<String>, socketPath defaultPath: String) async -> Int32 {
    let usage = "usage: fedsearch facets INDEX FACET [PREFIX] [--query Q] [--filters EXPR] [--hits N] [--json] [--socket PATH]"
    let parsed = parseCommand(args, valueOptions: ["query", "filters", "hits", "socket"], flags: ["json"], usage: usage)
    guard (2...3).contains(parsed.positional.count) else { fail("give INDEX, FACET and optionally PREFIX", usage: usage) }
    var maxFacetHits = 10
    do {
        if let n = try intOption(parsed, "hits", range: 1...100) { maxFacetHits = n }
    } catch let e as UsageError {
        fail(e.message, usage: usage)
    } catch { fail("\(error)") }
    let request = FacetValuesRequest(
        index: parsed.positional[0], facetName: parsed.positional[1],
        facetQuery: parsed.positional.count == 3 ? parsed.positional[2] : "", query: parsed.options["query"] ?? "",
        params: DaemonRequest.parameters(parsed.options["filters"].map { ["filters": .string($0)] } ?? [:]),
        maxFacetHits: maxFacetHits)
    var status: Int32 = 0
    let frames = await DaemonRequest.run(
        .searchForFacetValues(request), socketPath: parsed.options["socket"] ?? defaultPath, timeoutSeconds: 30)
    for frame in frames {
        if parsed.flags.contains("json") {
            print(JSONWriter.string(frame.json()))
        } else if case .info(_, "facetHits", let p) = frame {
            for hit in p["facetHits"]?.arrayValue ?? [] {
                let o = hit.objectValue ?? [:]
                print("\(o["value"]?.stringValue ?? "?")  (\(o["count"]?.intValue ?? 0))")
            }
        } else {
            HumanOutput().print(frame)
        }
        if case .error = frame { status = 1 }
    }
    return status
}

/// The search a `search` (or `watch`) command line asks for; `extraValues` are the command's
/// own value options.
func searchCommand(
    _ args: ArraySlice<String>, usage: String, extraValues: Set<String> = []
) -> (parsed: ParsedArguments, request: SearchRequest)? {
    let parsed: ParsedArguments
    do {
        parsed = try parseArguments(
            args, valueOptions: Set(["index", "facets", "filters", "hits", "page", "timeout", "socket"]).union(extraValues),
            flags: ["json", "help"])
    } catch let e as UsageError {
        fail(e.message, usage: usage)
    } catch { fail("\(error)") }
    if parsed.flags.contains("help") {
        print(usage)
        return nil
    }
    guard parsed.positional.count <= 1 else {
        fail("give the query as one argument (quote it): found \(parsed.positional.count)", usage: usage)
    }
    var params = JSONObject()
    var timeoutMs: Int?
    do {
        params["hitsPerPage"] = .number(Double(try intOption(parsed, "hits", range: 0...1000) ?? 10))
        if let page = try intOption(parsed, "page", range: 1...100_001) { params["page"] = .number(Double(page - 1)) }
        timeoutMs = try intOption(parsed, "timeout", range: 1...600_000)
    } catch let e as UsageError {
        fail(e.message, usage: usage)
    } catch { fail("\(error)") }
    if let facets = parsed.options["facets"] {
        params["facets"] = .array(facets.split(separator: ",").map { .string(String($0)) })
    }
    if let filters = parsed.options["filters"] { params["filters"] = .string(filters) }
    let targets = parsed.options["index"].map { $0.split(separator: ",").map { SearchTarget(index: String($0)) } }
    let request = SearchRequest(
        query: parsed.positional.first ?? "", targets: targets, parameters: DaemonRequest.parameters(params),
        timeoutMs: timeoutMs)
    return (parsed, request)
}

func search(_ args: ArraySlice<String>, socketPath defaultPath: String) async -> Int32 {
    guard let (parsed, request) = searchCommand(args, usage: searchUsage) else { return 0 }
    let json = parsed.flags.contains("json")
    let out = HumanOutput()
    var status: Int32 = 0
    await DaemonRequest.run(.search(request), socketPath: parsed.options["socket"] ?? defaultPath, timeoutSeconds: 60) { frame in
        if json { print(JSONWriter.string(frame.json())) } else { out.print(frame) }
        fflush(nil)
        switch frame {
        case .error: status = 1
        case .done(_, let s, _, _) where s != .ok: status = 1
        default: break
        }
    }
    return status
}

exit(await run())
