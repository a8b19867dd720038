import DaemonTestSupport
import Foundation
import Testing

/// The programs of docs/CLIENT.md against the real daemon on the demo config: `fedsearch-pipe`
/// (a search box replaced by standard input) answers each line in order, and
/// `fedsearch-two-indices` (the page's complete small program) prints each index's hits, the
/// status and the genre counts.
@Suite(.serialized)
struct ExampleProgramTests {
    @Test func thePipeSearchesEachLineInOrder() throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let p = Process()
        p.executableURL = DaemonProcess.binDirectory.appendingPathComponent("fedsearch-pipe")
        p.arguments = ["--socket", d.socketPath, "movies", "products"]
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        try p.run()
        input.fileHandleForWriting.write(Data("star wars\nlamp\n".utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let lines = text.split(separator: "\n").map(String.init)
        let dones = lines.indices.filter { lines[$0].hasPrefix("done ") }
        #expect(dones.count == 2, "\(text)")
        guard dones.count == 2 else { return }
        let first = lines[..<dones[0]].joined(separator: "\n")
        let second = lines[dones[0]..<dones[1]].joined(separator: "\n")
        #expect(first.contains("movies (") && first.contains("Star Wars"), "\(text)")
        #expect(second.contains("products (") && second.contains("Lamp"), "\(text)")
    }

    /// The pipe's exit status says whether every query was answered by every index: 1 for an
    /// unknown index or a daemon that is not there, 2 for a usage error; `--help` answers.
    @Test(arguments: [(["movies", "nosuchindex"], true, 1), (["movies"], false, 1), (["--frobnicate"], true, 2), (["--help"], true, 0)])
    func thePipesExitStatusSaysWhatHappened(args: [String], daemonUp: Bool, expected: Int32) throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        if !daemonUp { d.halt() }
        let p = Process()
        p.executableURL = DaemonProcess.binDirectory.appendingPathComponent("fedsearch-pipe")
        p.arguments = ["--socket", d.socketPath] + args
        let input = Pipe()
        let output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = Pipe()
        try p.run()
        input.fileHandleForWriting.write(Data("star wars\n".utf8))
        try input.fileHandleForWriting.close()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == expected, "\(args): \(text)")
        if args == ["--help"] { #expect(text.contains("usage: fedsearch-pipe") && text.contains("Exit status")) }
    }

    @Test func theSmallProgramOfTheGuideRuns() throws {
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let p = Process()
        p.executableURL = DaemonProcess.binDirectory.appendingPathComponent("fedsearch-two-indices")
        p.arguments = ["star", "wars"]
        p.environment = ProcessInfo.processInfo.environment.merging(["FEDSEARCH_SOCKET": d.socketPath]) { $1 }
        let output = Pipe()
        p.standardOutput = output
        try p.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        #expect(text.contains("movies: ") && text.contains("Star Wars"), "\(text)")
        #expect(text.contains("products: 0 hits"), "\(text)")
        #expect(text.contains("movies ok") && text.contains("products ok"), "\(text)")
        #expect(text.contains("genres: [\""), "\(text)")
    }
}
