#if canImport(Glibc)
import Glibc
#endif
/// Parsed command-line flags: `--name value` pairs, boolean flags and positional arguments.
struct ParsedArguments {
    var positional: [String] = []
    var options: [String: String] = [:]
    /// Every value of each option given more than once (in order); `options` holds the last.
    var repeated: [String: [String]] = [:]
    var flags: Set<String> = []
}

/// A usage error: printed with the command's help, exit code 2.
struct UsageError: Error {
    let message: String
}

/// Parses arguments against the sets of known value options and flags.
func parseArguments(_ args: ArraySlice<String>, valueOptions: Set<String>, flags: Set<String>) throws -> ParsedArguments {
    var parsed = ParsedArguments()
    var i = args.startIndex
    while i < args.endIndex {
        let a = args[i]
        if a == "--" {
            parsed.positional += args[(i + 1)...]
            break
        }
        if a.hasPrefix("--") {
            var name = String(a.dropFirst(2))
            var inlineValue: String?
            if let eq = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if flags.contains(name) {
                guard inlineValue == nil else { throw UsageError(message: "--\(name) takes no value") }
                parsed.flags.insert(name)
            } else if valueOptions.contains(name) {
                if let inlineValue {
                    parsed.options[name] = inlineValue
                } else {
                    i += 1
                    guard i < args.endIndex else { throw UsageError(message: "--\(name) needs a value") }
                    parsed.options[name] = args[i]
                }
                parsed.repeated[name, default: []].append(parsed.options[name]!)
            } else {
                throw UsageError(message: "unknown option '\(a)'")
            }
        } else if a == "-h" {
            parsed.flags.insert("help")
        } else {
            parsed.positional.append(a)
        }
        i += 1
    }
    return parsed
}

/// Parses a positive integer option.
func intOption(_ parsed: ParsedArguments, _ name: String, range: ClosedRange<Int>) throws -> Int? {
    guard let text = parsed.options[name] else { return nil }
    guard let v = Int(text), range.contains(v) else {
        throw UsageError(message: "--\(name): expected an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
    }
    return v
}

/// Parses a command's arguments (`--help` is always known): prints the usage and exits 0 on
/// `--help`, prints the error with the usage and exits 2 on a usage error.
func parseCommand(_ args: ArraySlice<String>, valueOptions: Set<String>, flags: Set<String> = [], usage: String) -> ParsedArguments {
    let parsed: ParsedArguments
    do { parsed = try parseArguments(args, valueOptions: valueOptions, flags: flags.union(["help"])) } catch let e as UsageError {
        fail(e.message, usage: usage)
    } catch { fail("\(error)") }
    if parsed.flags.contains("help") {
        print(usage)
        exit(0)
    }
    return parsed
}
