/// The two forms of `Retry-After` (RFC 9110 10.2.3), read by hand: this module has no Foundation.
enum HTTPDate {
    /// `delay-seconds`: digits (a fraction is taken too); nil for anything else (`0x5`, `inf`, `-1`, `1e3`).
    static func seconds(_ text: String) -> Double? {
        guard !text.isEmpty, text.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") }),
            text.utf8.first != UInt8(ascii: ".")
        else { return nil }
        return Double(text)
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// An HTTP date as seconds since 1970, in any of the three forms recipients must read (RFC 9110 5.6.7):
    /// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime
    /// (`Sun Nov  6 08:49:37 1994`); nil for anything else.
    static func parse(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        let day: Int?
        let month: Int?
        let year: Int?
        let clock: Substring
        switch parts.count {
        case 6 where parts[0].hasSuffix(",") && parts[5] == "GMT":
            (day, month, year, clock) = (
                Int(parts[1]), months.firstIndex(of: String(parts[2])), Int(parts[3]), parts[4]
            )
        case 4 where parts[0].hasSuffix(",") && parts[3] == "GMT":
            let date = parts[1].split(separator: "-")
            guard date.count == 3, let short = Int(date[2]) else { return nil }
            (day, month, clock) = (Int(date[0]), months.firstIndex(of: String(date[1])), parts[2])
            year = date[2].count == 2 ? (short < 70 ? 2000 + short : 1900 + short) : short
        case 5:
            (day, month, year, clock) = (
                Int(parts[2]), months.firstIndex(of: String(parts[1])), Int(parts[4]), parts[3]
            )
        default:
            return nil
        }
        guard let day, let month, let year, (1...31).contains(day) else { return nil }
        let time = clock.split(separator: ":").compactMap { Int($0) }
        guard time.count == 3, (0..<24).contains(time[0]), (0..<60).contains(time[1]), (0...60).contains(time[2])
        else { return nil }
        let days = daysSince1970(year: year, month: month + 1, day: day)
        return Double(days * 86_400 + time[0] * 3_600 + time[1] * 60 + time[2])
    }

    /// Days from 1970-01-01 to the date (proleptic Gregorian), after Howard Hinnant's `days_from_civil`.
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
