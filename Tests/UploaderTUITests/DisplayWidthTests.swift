import Foundation
import Testing
import UploadDomain

@testable import UploaderTUI

@Suite("DisplayWidth and Formatting")
struct DisplayWidthTests {
    @Test("CJK and emoji take two columns, combining marks none")
    func widths() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("강아지") == 6)
        #expect(DisplayWidth.of("写真") == 4)
        #expect(DisplayWidth.of("🐶") == 2)
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("❤️") == 2)
        #expect(DisplayWidth.of("ｆｕｌｌ") == 8)
    }

    @Test("truncation counts columns, not characters, and ends in an ellipsis")
    func truncation() {
        #expect(DisplayWidth.truncate("写真写真写真.jpg", to: 7) == "写真写…")
        #expect(DisplayWidth.truncate("写真写真写真.jpg", to: 8) == "写真写…")
        #expect(DisplayWidth.truncate("🐶🐱🐰.png", to: 6) == "🐶🐱…")
        #expect(DisplayWidth.truncate("short.jpg", to: 20) == "short.jpg")
        #expect(DisplayWidth.truncate("abcdef", to: 4, ellipsis: "~") == "abc~")
        #expect(DisplayWidth.of(DisplayWidth.pad("写真写真写真.jpg", to: 8)) == 8)
    }

    @Test("a wide character never straddles the edge of a frame")
    func frameEdge() {
        var frame = Frame(size: TerminalSize(cols: 5, rows: 1))
        let written = frame.put("ab写真", x: 0, y: 0)
        #expect(written == 5)
        #expect(frame.line(0) == "ab写")
        #expect(frame[4, 0].character == " ")
        frame.put("x", x: 3, y: 0)
        #expect(frame[2, 0].character == " ")
    }

    @Test("joined emoji and flags are laid out one cell per spacing scalar, without joiners, as every terminal agrees")
    func joinedSequences() {
        let family: Character = "👨\u{200D}👩\u{200D}👧"
        #expect(DisplayWidth.cells(family) == ["👨", "👩", "👧"])
        #expect(DisplayWidth.of(family) == 6)
        #expect(DisplayWidth.cells("🇯🇵").map { $0.unicodeScalars.count } == [1, 1])
        #expect(DisplayWidth.cells("❤️") == ["❤️"])
        #expect(DisplayWidth.cells("e\u{301}") == ["e\u{301}"])

        var frame = Frame(size: TerminalSize(cols: 20, rows: 1))
        let name = "a👨\u{200D}👩\u{200D}👧_🇯🇵b"
        let written = frame.put(name, x: 0, y: 0)
        #expect(written == DisplayWidth.of(name))
        #expect(written == 1 + 6 + 1 + DisplayWidth.of("🇯🇵") + 1)
        #expect(!frame.line(0).unicodeScalars.contains { $0.value == 0x200D })
        #expect(frame.line(0).hasPrefix("a👨👩👧_"))
        #expect(frame.line(0).trimmingCharacters(in: .whitespaces).hasSuffix("b"))
    }

    @Test("sizes, rates, percentages and durations read like a human wrote them")
    func formatting() {
        #expect(Formatting.bytes(0) == "0 B")
        #expect(Formatting.bytes(900) == "900 B")
        #expect(Formatting.bytes(1536) == "1.5 KiB")
        #expect(Formatting.bytes(2_516_582) == "2.4 MiB")
        #expect(Formatting.bytes(300 * 1024 * 1024) == "300 MiB")
        #expect(Formatting.bytes(1_342_177_280) == "1.25 GiB")
        #expect(Formatting.rate(1_153_434) == "1.1 MiB/s")
        #expect(Formatting.rate(0) == "—")
        #expect(Formatting.percent(0.999) == "99%")
        #expect(Formatting.percent(1) == "100%")
        #expect(Formatting.duration(.seconds(9)) == "0:09")
        #expect(Formatting.duration(.seconds(3723)) == "1:02:03")
    }
}
