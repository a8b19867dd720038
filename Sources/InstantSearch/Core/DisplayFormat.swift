/// How the widgets write numbers for people: counts with thousands separators, times with
/// one decimal below 10 ms, filter bounds without a needless decimal point.
public enum DisplayFormat {
    /// `12,345`.
    public static func count(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return n < 0 ? "-" + out : out
    }

    /// `0.4`, `12` (milliseconds: one decimal below 10, whole above).
    public static func milliseconds(_ ms: Double) -> String {
        ms < 10 ? oneDecimal(ms) : String(Int(ms.rounded()))
    }

    /// `0.4`, `500.2`.
    public static func oneDecimal(_ d: Double) -> String {
        let tenths = Int((d * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `2000`, `12.5` (integers without a decimal point).
    public static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }
}
