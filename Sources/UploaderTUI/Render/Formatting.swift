import UploadDomain

/// Human-readable sizes, rates, percentages and durations for the screen.
public enum Formatting {
    /// `512 B`, `2.4 KiB`, `18.0 MiB`, `1.25 GiB`.
    public static func bytes(_ count: Int64) -> String {
        let value = Double(max(0, count))
        if value < 1024 { return "\(Int64(value)) B" }
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
        var scaled = value / 1024
        var unit = 0
        while scaled >= 1024, unit < units.count - 1 {
            scaled /= 1024
            unit += 1
        }
        // Three significant figures at most, so columns stay narrow: 999 KiB, 18.4 MiB, 1.25 GiB.
        let digits: Int
        if scaled >= 100 {
            digits = 0
        } else if scaled >= 10 || unit < 2 {
            digits = 1
        } else {
            digits = 2
        }
        return fixed(scaled, digits: digits) + " " + units[unit]
    }

    /// `3.1 MiB/s`; an em dash (or `-`) when nothing moves.
    public static func rate(_ bytesPerSecond: Double, dash: String = "—") -> String {
        guard bytesPerSecond.isFinite, bytesPerSecond >= 1 else { return dash }
        return bytes(Int64(bytesPerSecond)) + "/s"
    }

    /// `62%` (floored, so 100% only shows when everything is there).
    public static func percent(_ fraction: Double) -> String {
        let clamped = fraction.isFinite ? min(1, max(0, fraction)) : 0
        return "\(Int((clamped * 100).rounded(.down)))%"
    }

    /// `0:09`, `12:34`, `1:02:03`.
    public static func duration(_ duration: Duration) -> String {
        let total = max(0, duration.components.seconds)
        let hours = total / 3600
        let minutes = (total % 3600) / 60
        let seconds = total % 60
        let ss = seconds < 10 ? "0\(seconds)" : "\(seconds)"
        if hours > 0 {
            let mm = minutes < 10 ? "0\(minutes)" : "\(minutes)"
            return "\(hours):\(mm):\(ss)"
        }
        return "\(minutes):\(ss)"
    }

    /// A time-left range, `0:40–0:55` (`0:40-0:55` in ASCII); one figure when both ends read the same.
    public static func range(_ range: EtaRange, ascii: Bool) -> String {
        let low = duration(range.low)
        let high = duration(range.high)
        return low == high ? low : low + (ascii ? "-" : "–") + high
    }

    /// `value` with exactly `digits` decimals, without Foundation's locale-dependent formatting.
    static func fixed(_ value: Double, digits: Int) -> String {
        guard digits > 0 else { return "\(Int64(value.rounded()))" }
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int64((value * scale).rounded())
        let whole = scaled / Int64(scale)
        var fraction = String(scaled % Int64(scale))
        while fraction.count < digits { fraction = "0" + fraction }
        return "\(whole).\(fraction)"
    }
}
