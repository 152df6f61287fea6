import UploadDomain

/// Human figures for sizes, rates and durations.
public enum Format {
    /// `a`, `a and b`, `a, b and c`.
    public static func listed(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
    }

    /// `1.5 MiB`, `512 B`.
    public static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format1(value)) + " " + units[unit]
    }

    /// `12.3 MiB/s`.
    public static func rate(_ bytesPerSecond: Double) -> String {
        bytes(Int64(max(0, bytesPerSecond))) + "/s"
    }

    /// `2m05s`, `41s`, `1.2s`.
    public static func duration(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        // A short run's time, not "0.0s".
        if seconds < 0.1 { return "\(Int((seconds * 1000).rounded()))ms" }
        if seconds < 10 { return format1(seconds) + "s" }
        let whole = Int(seconds.rounded())
        if whole < 60 { return "\(whole)s" }
        if whole < 3600 { return "\(whole / 60)m" + pad(whole % 60) + "s" }
        return "\(whole / 3600)h" + pad(whole / 60 % 60) + "m"
    }

    /// A time-left range, `40s–55s`; one figure when both ends read the same.
    public static func range(_ range: EtaRange) -> String {
        let low = timeLeft(range.low)
        let high = timeLeft(range.high)
        return low == high ? low : low + "–" + high
    }

    /// Time left, in whole seconds from 1 s up: an estimate has no finer grain to show.
    public static func timeLeft(_ left: Duration) -> String {
        let whole = max(1, Int(seconds(left).rounded()))
        return whole < 60 ? "\(whole)s" : duration(.seconds(whole))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func format1(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
