/// A view of the stats line.
@MainActor
public protocol StatsController: AnyObject {
    /// Shows `stats` (nil: no answer yet).
    func setItem(_ stats: SearchStats?)
}
