import DaemonTestSupport
import Foundation
import Testing
import FederatedSearchClient
import FederatedSearchCore
@testable import FederatedSearchProtocol

/// The daemon writes each merged hit as its source's hit, byte for byte, then its annotations:
/// what lets a connection's decoder take the merged list from the results frames it has read.
@Suite(.serialized)
struct AnswerDecodingTests {
    @Test func theDemosMergedHitsAreTakenFromItsResultsFrames() throws {
        let d = try DaemonProcess.demo()
        let c = try d.connect()
        for (i, query) in ["star wa", "love", "puzzle", ""].enumerated() {
            try c.sendRaw(
                Array(#"{"id":"q\#(i)","query":"\#(query)","indices":["movies","products"],"params":{"hitsPerPage":10}}"#.utf8) + [0x0A])
            var decoder = AnswerDecoder()
            var merged: MergedResults?
            while let line = try c.readLine() {
                let frame = try decoder.decode(line)
                #expect(frame == (try FrameDecoder.decode(line)))
                if case .merged(_, let m) = frame { merged = m }
                if frame.endsRequest { break }
            }
            let m = try #require(merged, "\(query)")
            #expect(!m.hits.isEmpty, "\(query)")
            #expect(decoder.mergedHitsTaken == m.hits.count, "\(query)")
            #expect(decoder.requestsRemembered == 0)
        }
    }
}
