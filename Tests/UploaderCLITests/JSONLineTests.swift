import Foundation
import Testing

@testable import UploaderCLI

@Suite("JSONLine")
struct JSONLineTests {
    /// Names as hostile as a file system allows, plus text a server may send back.
    static let samples = [
        "cat.jpg", "", "a\"b\\c", "line\nbreak\r\ttab", "\u{1B}[31mred\u{1B}[0m", "del\u{7F}", "nul\u{0}byte",
        "sep\u{2028}para\u{2029}end", "\u{E2}", "고양이 사진.jpg", "🐈‍⬛ emoji", "é vs e\u{301}", "\u{2027}\u{202A}",
    ]

    @Test("every string survives a round trip through a JSON parser, on one line", arguments: samples)
    func roundTrip(_ text: String) throws {
        var line = JSONLine()
        line.add("file", text)
        line.add("n", 42)
        line.add("missing", nil as String?)
        let encoded = line.text
        #expect(!encoded.contains("\n") && !encoded.contains("\r"))
        #expect(!encoded.unicodeScalars.contains { $0.value == 0x2028 || $0.value == 0x2029 || $0.value < 0x20 })
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(encoded.utf8)) as? [String: Any])
        #expect(object["file"] as? String == text)
        #expect(object["n"] as? Int == 42)
        #expect(object["missing"] is NSNull)
    }

    @Test("a line longer than its first buffer grows and keeps every byte")
    func longLine() throws {
        var line = JSONLine()
        let long = String(repeating: "é\"x", count: 700)
        line.add("first", long)
        for index in 0..<100 { line.add("n", index) }
        let plain = String(repeating: "plain/", count: 300)
        line.add("plain", plain)
        line.add("last", long)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.text.utf8)) as? [String: Any])
        #expect(object["first"] as? String == long && object["last"] as? String == long)
        #expect(object["n"] as? Int == 99 && object["plain"] as? String == plain)
    }

    @Test("integers are written digit by digit, signs and extremes included")
    func integers() {
        var line = JSONLine()
        for value in [0, 7, -7, 1_000_000, Int64.max, Int64.min] { line.add("n", value) }
        line.add("none", nil as Int?)
        #expect(
            line.text
                == #"{"n":0,"n":7,"n":-7,"n":1000000,"n":9223372036854775807,"n":-9223372036854775808,"none":null}"#)
    }

    @Test("keys keep the order they were added in, numbers are plain JSON numbers")
    func orderAndNumbers() {
        var line = JSONLine()
        line.add("event", "done")
        line.add("seconds", 1.23456)
        line.add("whole", 3.0)
        line.add("nan", Double.nan)
        line.add("raw", rawJSON: #"{"a":[1,2]}"#)
        #expect(line.text == #"{"event":"done","seconds":1.235,"whole":3,"nan":null,"raw":{"a":[1,2]}}"#)
    }

    @Test("timestamps are RFC 3339 UTC with milliseconds, and now")
    func timestamp() throws {
        let before = Date()
        let text = HeadlessReporter.timestamp()
        let after = Date()
        #expect(text.count == 24 && text.hasSuffix("Z"), "\(text)")
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let parsed = try #require(formatter.date(from: text), "\(text)")
        #expect(parsed.timeIntervalSince(before) > -0.002 && parsed.timeIntervalSince(after) < 0.002)
    }
}
