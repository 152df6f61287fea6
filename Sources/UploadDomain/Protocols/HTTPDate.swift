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

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) as seconds since 1970; nil for anything else.
    static func parse(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT", let day = Int(parts[1]),
            let month = months.firstIndex(of: String(parts[2])), let year = Int(parts[3]), (1...31).contains(day)
        else { return nil }
        let clock = parts[4].split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (0..<24).contains(clock[0]), (0..<60).contains(clock[1]), (0...60).contains(clock[2])
        else { return nil }
        let days = daysSince1970(year: year, month: month + 1, day: day)
        return Double(days * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2])
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
