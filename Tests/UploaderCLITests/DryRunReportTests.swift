import Foundation
import Testing
import UploadDomain

@testable import UploaderCLI

@Suite("DryRunReport")
struct DryRunReportTests {
    private func file(_ name: String, skip: String? = nil, journal: PlannedFile.JournalVerdict = .new) -> PlannedFile {
        PlannedFile(
            name: name, type: "image/jpeg", width: 40, height: 30, size: 1_000, preparation: nil,
            destination: "http://127.0.0.1/x", journal: journal, gps: false, skipReason: skip, error: nil)
    }

    private func objects(_ lines: [String]) throws -> [[String: Any]] {
        try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test("NDJSON: left-out entries, a planned event per file, then a summary with exit_code and ts like a run's")
    func ndjson() throws {
        let lines = DryRunReport.lines(
            [file("a.jpg"), file("b.jpg", journal: .skip), file("key", skip: "symbolic link to /etc/passwd")],
            leftOut: [LeftOutEntry(path: ".cache/", reason: "hidden (--hidden sends it)")],
            violations: ["--max-files 1: 3 files, at most 1 allowed"], json: true, exitCode: 2)
        let events = try objects(lines)
        #expect(events.map { $0["event"] as? String } == ["skipped", "planned", "planned", "planned", "summary"])
        #expect(events[0]["file"] as? String == ".cache/" && events[0]["left_out"] as? Bool == true)
        #expect(events[1]["would_send"] as? Bool == true && events[1]["journal"] as? String == "new")
        #expect(events[2]["would_send"] as? Bool == false && events[2]["journal"] as? String == "skip")
        #expect(events[3]["reason"] as? String == "symbolic link to /etc/passwd")
        #expect(events.allSatisfy { ($0["ts"] as? String)?.hasSuffix("Z") == true }, "\(lines)")
        let summary = try #require(events.last)
        #expect(summary["dry_run"] as? Bool == true && summary["files"] as? Int == 3)
        #expect(summary["to_send"] as? Int == 1 && summary["already_uploaded"] as? Int == 1)
        #expect(summary["not_sent"] as? Int == 1 && summary["left_out"] as? Int == 1)
        #expect(summary["rules_broken"] as? [String] == ["--max-files 1: 3 files, at most 1 allowed"])
        #expect(summary["exit_code"] as? Int == 2)
    }

    @Test("the table's columns line up under wide names: CJK and emoji take two columns a character")
    func wideNames() {
        let lines = DryRunReport.lines(
            [file("wide中文名字😀.txt"), file("plain.jpg")], leftOut: [], violations: [], json: false, exitCode: 0)
        let rows = lines.filter { $0.contains(".txt") || $0.contains("plain.jpg") }
        #expect(rows.count == 2, "\(lines)")
        // The TYPE column starts at column 30 on every row, counted as a terminal counts.
        for row in rows {
            let type = row.range(of: "jpeg")!.lowerBound
            #expect(DisplayWidth.of(row[..<type]) == 30, "\(row)")
        }
    }

    @Test("the table's last line says none would be sent while a rule is broken, else how many would")
    func tableSummary() {
        let broken = DryRunReport.lines(
            [file("a.jpg")], leftOut: [], violations: ["--max-files 0: 1 file, at most 0 allowed"], json: false,
            exitCode: 2)
        #expect(
            broken.contains("dry run: 1 file, none would be sent (rules broken) (1000 B); nothing sent"), "\(broken)")
        let fine = DryRunReport.lines([file("a.jpg")], leftOut: [], violations: [], json: false, exitCode: 0)
        #expect(fine.contains("dry run: 1 file, 1 would be sent (1000 B); nothing sent"), "\(fine)")
    }

    @Test("files that would fail are counted in the last line and each said whole after it, beyond the column's cut")
    func failingFiles() {
        var broken = file("broken.png")
        broken.error = "cannot decode image: vipspng: libpng read error (a truncated file, its last 200 bytes gone)"
        let lines = DryRunReport.lines(
            [file("a.jpg"), broken], leftOut: [], violations: [], json: false, exitCode: 0)
        #expect(lines.contains("dry run: 2 files, 1 would be sent, 1 would fail (1000 B); nothing sent"), "\(lines)")
        #expect(lines.last == "would fail: broken.png: " + (broken.error ?? ""), "\(lines)")
    }
}
