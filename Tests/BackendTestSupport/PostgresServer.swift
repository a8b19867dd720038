import Foundation

/// A real PostgreSQL server for the tests: a fresh data folder under /tmp, a Unix socket in
/// the same folder (no TCP), a database `fst` with the demo products loaded as the table
/// `products`. Started by ``start()`` and stopped (folder removed) by ``stop()``.
///
/// PostgreSQL refuses to run as root, so as root the server commands run as the `postgres`
/// system user (created by Debian's `postgresql` package) through `runuser`.
public struct PostgresServer: Sendable {
    /// The folder holding the data folder, the socket and the log.
    public let directory: String
    /// The libpq connection string of the test database.
    public var connectionString: String { "host=\(directory) dbname=fst user=postgres" }

    /// The server binaries: $FEDSEARCH_PG_BIN, else Debian's PostgreSQL 15.
    public static var binDirectory: String {
        ProcessInfo.processInfo.environment["FEDSEARCH_PG_BIN"] ?? "/usr/lib/postgresql/15/bin"
    }

    /// Whether the server binaries are installed.
    public static var isAvailable: Bool {
        ["initdb", "pg_ctl", "postgres", "psql"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: "\(binDirectory)/\($0)")
        }
    }

    /// The server of the running test suite (set by the `.postgresServer` trait).
    @TaskLocal public static var current: PostgresServer?

    /// Creates the cluster, starts the server and loads `Configs/data/products.ndjson`.
    public static func start() throws -> PostgresServer {
        let dir = "/tmp/fstpg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        if getuid() == 0 { try FileManager.default.setAttributes([.ownerAccountName: "postgres"], ofItemAtPath: dir) }
        let server = PostgresServer(directory: dir)
        do {
            try runAsServerUser(
                "initdb",
                [
                    "-D", "\(dir)/data", "-U", "postgres", "--auth=trust", "-E", "UTF8",
                    "--locale=C", "--no-sync", "--no-instructions",
                ])
            try runAsServerUser(
                "pg_ctl",
                [
                    "-D", "\(dir)/data", "-l", "\(dir)/server.log", "-w", "-t", "60",
                    "-o", "-k \(dir) -c listen_addresses='' -c fsync=off", "start",
                ])
            try server.psql(database: "postgres", ["-c", "CREATE DATABASE fst"])
            try server.loadProducts()
        } catch {
            server.stop()
            throw error
        }
        return server
    }

    /// Stops the server at once and removes its folder.
    public func stop() {
        _ = try? Self.runAsServerUser("pg_ctl", ["-D", "\(directory)/data", "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs SQL with psql on the test database and returns its unaligned, tuples-only output.
    @discardableResult
    public func sql(_ statement: String) throws -> String {
        try psql(database: "fst", ["-A", "-t", "-c", statement])
    }

    /// The demo products, as JSON objects (for expectations computed in the tests).
    public static func products() throws -> [[String: Any]] {
        try String(contentsOfFile: productsPath, encoding: .utf8).split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] ?? [:]
        }
    }

    static var productsPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Configs/data/products.ndjson").path
    }

    /// Loads the NDJSON through `COPY` into a jsonb staging table, then into typed columns.
    private func loadProducts() throws {
        var script = "CREATE TABLE raw (doc jsonb);\nCOPY raw (doc) FROM STDIN;\n"
        for line in try String(contentsOfFile: Self.productsPath, encoding: .utf8).split(separator: "\n") {
            // COPY's text format treats backslashes as escapes.
            script += line.replacingOccurrences(of: "\\", with: "\\\\") + "\n"
        }
        script += """
            \\.
            CREATE TABLE products (
                objectid text PRIMARY KEY, name text, title text, short_description text, supplier text,
                price integer, date_released timestamptz, attr_t_product_type text, attr_t_product_colour text);
            INSERT INTO products SELECT doc->>'objectID', doc->>'name', doc->>'title', doc->>'short_description',
                doc->>'supplier', (doc->>'price')::integer, (doc->>'date_released')::timestamptz,
                doc->>'attr_t_product_type', doc->>'attr_t_product_colour' FROM raw;
            DROP TABLE raw;

            """
        let file = "\(directory)/load.sql"
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        try psql(database: "fst", ["-f", file])
    }

    @discardableResult
    private func psql(database: String, _ arguments: [String]) throws -> String {
        try Self.run(
            "\(Self.binDirectory)/psql",
            ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", directory, "-U", "postgres", "-d", database] + arguments)
    }

    /// Runs a server binary, as the `postgres` user when running as root.
    @discardableResult
    private static func runAsServerUser(_ tool: String, _ arguments: [String]) throws -> String {
        let path = "\(binDirectory)/\(tool)"
        if getuid() == 0 { return try run("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments) }
        return try run(path, arguments)
    }

    /// Runs a program to completion; throws with its output when it fails.
    ///
    /// Spawned with `posix_spawn` and reaped with `waitpid`, not with Foundation's `Process`:
    /// `Process` learns of the exit through a descriptor the child inherits, and the server that
    /// `pg_ctl start` leaves running would inherit it too, so the wait would never end. Output
    /// goes to a file for the same reason.
    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let outputPath = "/tmp/fstpg-out-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw ServerError(description: "cannot run \(executable): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED and WEXITSTATUS, spelled out (the C macros are not imported).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw ServerError(description: "\(executable) \(arguments.joined(separator: " ")) failed (status \(status)): \(text)")
        }
        return text
    }

    public struct ServerError: Error, CustomStringConvertible {
        public let description: String
    }
}
