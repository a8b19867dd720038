// fedsearch-fuzz: coverage-guided fuzzing (libFuzzer) of what a client or an operator can
// send the daemon. Built only by `make fuzz` (FEDSEARCH_FUZZ=1, -sanitize=fuzzer); see
// docs/FUZZING.md. The target is chosen by FEDSEARCH_FUZZ_TARGET:
//
// - `request` (default): one request line through the daemon's request path (decoding,
//   planning, the embedded engine on the demo indices, the merges, the frames).
// - `documents`: NDJSON documents indexed by the embedded engine, then searched.
// - `config`: a daemon config file, parsed and validated.
// - `settings`: index settings as a client sends them, then an index built and searched.
// - `writes`: request lines in order against a durable index (document and settings writes,
//   reads, searches), through the same request path.
//
// A target fails when the process traps or crashes; an error frame is a correct answer.
import Foundation

// libFuzzer's entry point when the program has its own main (libFuzzer's FuzzerDriver).
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

guard FuzzTargets.selected != nil else {
    FileHandle.standardError.write(Data("fedsearch-fuzz: FEDSEARCH_FUZZ_TARGET is request, documents, config, settings or writes\n".utf8))
    exit(2)
}
var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv) { data, count in fuzzOneInput(data, count) })
