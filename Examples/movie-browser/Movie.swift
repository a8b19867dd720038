/// A movie of the demo's `movies` index, as this app reads it: typed, decoded once per page of
/// results (``HitRecords``), not looked up attribute by attribute.
struct Movie: Decodable, Sendable, Equatable {
    let objectID: String
    let title: String
    let year: Int?
    let genres: [String]?
    let cast: [String]?

    /// `Alien (1979)`.
    var heading: String { year.map { "\(title) (\($0))" } ?? title }
}
