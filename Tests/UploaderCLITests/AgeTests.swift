import Foundation
import Testing

@testable import UploaderCLI

@Suite("Ages on the command line (--max-age, --min-age)")
struct AgeTests {
    @Test("durations in rclone's units, alone or combined; a lone number is seconds")
    func durations() {
        let now = 1_700_000_000.0
        #expect(Age.seconds("90", now: now) == 90)
        #expect(Age.seconds("15m", now: now) == 900)
        #expect(Age.seconds("2h30m", now: now) == 9000)
        #expect(Age.seconds("1.5d", now: now) == 129_600)
        #expect(Age.seconds("1w", now: now) == 604_800)
        #expect(Age.seconds("1M", now: now) == 2_592_000)
        #expect(Age.seconds("1y", now: now) == 31_536_000)
        #expect(Age.seconds("500ms", now: now) == 0.5)
    }

    @Test("a local date, with or without a time, is the time since then")
    func dates() throws {
        var parts = DateComponents()
        (parts.year, parts.month, parts.day, parts.hour, parts.minute) = (2024, 6, 1, 18, 30)
        let moment = try #require(Calendar.current.date(from: parts)).timeIntervalSince1970
        #expect(Age.seconds("2024-06-01 18:30", now: moment + 60) == 60)
        #expect(Age.seconds("2024-06-01T18:30:00", now: moment + 60) == 60)
        #expect(Age.seconds("2024-06-01", now: moment) == 18.5 * 3600)
    }

    @Test("anything else is not an age", arguments: ["", "soon", "3x", "-5", "d", "2024-13-45", "1h-5m"])
    func notAges(text: String) {
        #expect(Age.seconds(text, now: 0) == nil)
    }
}
