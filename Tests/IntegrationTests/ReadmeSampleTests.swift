import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchCore

/// The README's sample session is what the demo answers: its command is run against the
/// daemon on the demo config, and each line of its sample output that does not depend on
/// timings (the counts, the titles and their order) is in the command's output.
@Suite(.serialized)
struct ReadmeSampleTests {
    /// The README's first sample: the command after `$ ` and the output lines below it.
    static func sample() throws -> (arguments: [String], output: [String]) {
        let readme = try String(contentsOf: DaemonProcess.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix("$ .build/release/fedsearch search ") }) else {
            throw DaemonProcess.DaemonError(description: "the README has no sample `$ .build/release/fedsearch search` session")
        }
        let command = lines[start].dropFirst("$ .build/release/fedsearch ".count)
        // The command's words, quotes kept together ("star wars").
        var arguments: [String] = []
        var word = ""
        var quoted = false
        for c in command {
            if c == "\"" {
                quoted.toggle()
                continue
            }
            if c == " " && !quoted {
                if !word.isEmpty { arguments.append(word) }
                word = ""
            } else {
                word.append(c)
            }
        }
        if !word.isEmpty { arguments.append(word) }
        let output = lines[(start + 1)...].prefix { !$0.hasPrefix("```") }
        return (arguments, Array(output))
    }

    /// A sample line without its timings (`0.49 ms`) or the README's ellipses; nil for a line
    /// of times alone or of an ellipsis alone.
    static func stable(_ line: String) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed != "..." else { return nil }
        guard !line.hasPrefix("done ") else { return nil }  // every figure on it is a time
        var words = line.components(separatedBy: "  ")
        if let last = words.last, last.hasSuffix(" ms") { words.removeLast() }
        let kept = words.joined(separator: "  ")
        // A line the README cuts short (`War (31), ...`): what it shows of it.
        return kept.hasSuffix(", ...") ? String(kept.dropLast(3)) : kept
    }

    @Test func theSampleSessionIsWhatTheDemoAnswers() throws {
        let (arguments, output) = try Self.sample()
        #expect(arguments.first == "search")
        let d = try DaemonProcess.demo()
        defer { d.stop() }
        let run = try runBuilt("fedsearch", ["--socket", d.socketPath] + arguments)
        #expect(run.status == 0, "\(run)")
        let expected = output.compactMap(Self.stable)
        #expect(expected.count >= 8, "\(output)")
        for line in expected {
            #expect(run.out.contains(line), "the README says '\(line)'; the demo answers:\n\(run.out)")
        }
    }
}
