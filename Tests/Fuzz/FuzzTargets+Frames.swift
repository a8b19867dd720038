import FederatedSearchCore
import FederatedSearchProtocol

extension FuzzTargets {
    /// Frame lines (one per input line), as a client decodes them: the connection's
    /// `AnswerDecoder`, which takes merged hits from the results frames they repeat, must give
    /// what the stateless `FrameDecoder` gives for every line (the same frame, or an error for
    /// both), and checking a line without building it must accept exactly what parsing accepts.
    @Sendable static func frames(_ input: [UInt8]) {
        var decoder = AnswerDecoder()
        for line in input.split(separator: 0x0A, omittingEmptySubsequences: true).map(Array.init) {
            let remembered = try? decoder.decode(line)
            let alone = try? FrameDecoder.decode(line)
            guard remembered == alone else {
                fatalError("AnswerDecoder and FrameDecoder disagree on: \(String(decoding: line, as: UTF8.self))")
            }
            guard JSONParser.isValid(line) == ((try? JSONParser.parse(line)) != nil) else {
                fatalError("checking and parsing disagree on: \(String(decoding: line, as: UTF8.self))")
            }
        }
    }
}
