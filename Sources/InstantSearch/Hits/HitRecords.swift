import FederatedSearchCore
import FederatedSearchProtocol
import Foundation

/// The hits of a ``HitsInteractor`` as records of your own `Decodable` type (InstantSearch's
/// `HitsInteractor<Record>`): each page of results is decoded once, when it arrives, with
/// Foundation's `JSONDecoder` over the hit's attributes (`objectID` included). A hit that does
/// not decode is left out of ``records`` and counted in ``undecodable``.
///
///     struct Movie: Decodable { let objectID: String; let title: String; let year: Int? }
///     let movies = HitRecords<Movie>(hits)
///     movies.onRecordsChanged.subscribe(with: view) { view, records in view.show(records) }
@MainActor
public final class HitRecords<Record: Decodable & Sendable> {
    /// The records of the hits loaded, in order.
    public private(set) var records: [Record] = []
    /// Hits of the pages loaded that did not decode as `Record`.
    public private(set) var undecodable = 0
    /// Fired with the records after each page.
    public let onRecordsChanged = Observer<[Record]>()
    private weak var interactor: HitsInteractor?
    private let decoder: JSONDecoder

    /// Decodes `interactor`'s hits as they arrive (with `decoder`: its date and key strategies
    /// are yours to set).
    public init(_ interactor: HitsInteractor, decoder: JSONDecoder = JSONDecoder()) {
        self.interactor = interactor
        self.decoder = decoder
        replace(with: interactor.hits)
        interactor.onResultsUpdated.subscribe(with: self) { records, results in
            guard let hits = records.interactor?.hits else { return }
            // A page joined to those decoded: only its hits are decoded.
            if results.page > 0, hits.count == records.records.count + records.undecodable + results.hits.count {
                records.append(results.hits)
            } else {
                records.replace(with: hits)
            }
        }
    }

    /// The record at `index`; near the end of those loaded, asks for the next page (as
    /// ``HitsInteractor/hit(atIndex:)``).
    public func record(atIndex index: Int) -> Record? {
        _ = interactor?.hit(atIndex: index)
        return records.indices.contains(index) ? records[index] : nil
    }

    private func replace(with hits: [Hit]) {
        records = []
        undecodable = 0
        append(hits)
    }

    private func append(_ hits: [Hit]) {
        for hit in hits {
            if let r = Self.decode(hit, with: decoder) { records.append(r) } else { undecodable += 1 }
        }
        onRecordsChanged.fire(records)
    }

    /// One hit as a `Record`, nil if it does not decode.
    public static func decode(_ hit: Hit, with decoder: JSONDecoder = JSONDecoder()) -> Record? {
        var object = hit.attributes
        if object["objectID"] == nil { object["objectID"] = .string(hit.objectID) }
        return try? decoder.decode(Record.self, from: Data(JSONWriter.bytes(.object(object))))
    }
}

/// The merged list as records of your own type, each with the index it came from.
@MainActor
public final class MergedRecords<Record: Decodable & Sendable> {
    /// The records of the merged hits loaded, in merged order, with their index.
    public private(set) var records: [(index: String, record: Record)] = []
    public let onRecordsChanged = Observer<[(index: String, record: Record)]>()
    private let decoder: JSONDecoder

    public init(_ interactor: MergedHitsInteractor, decoder: JSONDecoder = JSONDecoder()) {
        self.decoder = decoder
        take(interactor.hits)
        interactor.onItemChanged.subscribe(with: self) { records, merged in records.take(merged?.hits ?? []) }
    }

    private func take(_ hits: [MergedHit]) {
        records = hits.compactMap { m in HitRecords<Record>.decode(m.hit, with: decoder).map { (m.index, $0) } }
        onRecordsChanged.fire(records)
    }
}
