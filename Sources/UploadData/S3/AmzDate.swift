import Foundation

/// A signing time in SigV4's two UTC forms, computed from the epoch so no formatter, locale or time zone
/// can change it.
struct AmzDate: Sendable, Equatable {
    /// `yyyyMMdd'T'HHmmss'Z'`, for `x-amz-date` and the string to sign.
    let timestamp: String
    /// `yyyyMMdd`, for the credential scope and the signing key.
    let day: String

    init(_ date: Date) {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, dayOfMonth) = Self.civil(fromDays: days)
        day = Self.pad(year, 4) + Self.pad(month, 2) + Self.pad(dayOfMonth, 2)
        timestamp =
            day + "T" + Self.pad(secondOfDay / 3600, 2) + Self.pad(secondOfDay % 3600 / 60, 2)
            + Self.pad(secondOfDay % 60, 2) + "Z"
    }

    /// Proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, dayOfMonth)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
