import Foundation

/// Ages on the command line, as rclone takes them (`--max-age`, `--min-age`): a duration such as `90` (seconds),
/// `15m`, `2h30m`, `3d`, `1w`, `6M`, `1y` (ms, s, m, h, d, w, M = 30 days, y = 365 days), or a moment:
/// `2024-06-01`, `2024-06-01 18:30`, `2024-06-01T18:30:05` (local time).
public enum Age {
    /// The age in seconds at `now` (seconds since 1970), or nil when the text is neither a duration nor a date.
    public static func seconds(_ text: String, now: Double) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let duration = duration(trimmed) { return duration }
        return moment(trimmed).map { now - $0 }
    }

    private static let units: [String: Double] = [
        "ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 7 * 86_400, "M": 30 * 86_400, "y": 365 * 86_400,
    ]

    /// `90`, `2h30m`, `1.5d`: numbers each followed by a unit (a lone number is seconds).
    private static func duration(_ text: String) -> Double? {
        if let plain = Double(text) { return plain >= 0 && plain.isFinite ? plain : nil }
        var total = 0.0
        var rest = Substring(text)
        guard !rest.isEmpty else { return nil }
        while !rest.isEmpty {
            let number = rest.prefix { $0.isNumber || $0 == "." }
            rest = rest.dropFirst(number.count)
            let unit = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(unit.count)
            guard let value = Double(number), let scale = units[String(unit)] else { return nil }
            total += value * scale
        }
        return total
    }

    /// Seconds since 1970 of a local date, with or without a time of day.
    private static func moment(_ text: String) -> Double? {
        for format in [
            "yyyy-MM-dd", "yyyy-MM-dd HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm",
            "yyyy-MM-dd'T'HH:mm:ss",
        ] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date.timeIntervalSince1970 }
        }
        return nil
    }
}
