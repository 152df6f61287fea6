import Foundation
import Testing
import UploadDomain

@testable import UploaderTUI

@Suite("ScreenRenderer filter, search and curl lines")
struct ScreenRendererFilterTests {
    @Test("a filtered list names the filter and its count in the title row; the header counts the whole batch")
    func failedFilter() {
        for size in Fixtures.sizes {
            var state = UIState(size: size)
            state.filter = .failed
            let frame = Fixtures.render(Fixtures.uploading, size: size, state: state)
            expectSnapshot(frame, named: "filter-failed-\(size)")
            let layout = Layout(size: size)
            #expect(frame.line(layout.columnHeaderRow).contains("filter: failed (1)"), "\(frame.text)")
            #expect(frame.line(layout.listTop).contains("broken.png"))
            #expect(!frame.text.contains("cat-001.jpg"))
            #expect(frame.line(1).contains("active 4"), "\(frame.line(1))")
            #expect(frame.line(layout.footerRow).hasSuffix("1/1"))
        }
    }

    @Test("the search prompt takes the bottom line and narrows the list as it is typed")
    func searchPrompt() {
        let size = TerminalSize(cols: 80, rows: 24)
        var state = UIState(size: size)
        state.isSearching = true
        state.search = "CAT-"
        let frame = Fixtures.render(Fixtures.uploading, size: size, state: state)
        expectSnapshot(frame, named: "search-cat-\(size)")
        let layout = Layout(size: size)
        let footer = frame.line(layout.footerRow)
        #expect(footer.hasPrefix(" /CAT-"), "\(footer)")
        #expect(footer.contains("Esc clears") && footer.hasSuffix("1/2"), "\(footer)")
        #expect(frame.line(layout.columnHeaderRow).contains("/CAT- (2)"))
        #expect(frame.line(layout.listTop).contains("cat-001.jpg"))
        #expect(frame.line(layout.listTop + 1).contains("cat-002.jpg"))
        #expect(!frame.text.contains("broken.png"))
    }

    @Test("a filter that matches nothing says so")
    func noMatch() {
        let size = TerminalSize(cols: 80, rows: 24)
        var state = UIState(size: size)
        state.filter = .failed
        let frame = Fixtures.render(Fixtures.done, size: size, state: state)
        #expect(frame.line(Layout(size: size).listTop).contains("No files match"))
    }

    @Test(
        "the detail pane shows the curl command one option a line, without borders beside it, wrapped to fit as sh joins it"
    )
    func unwrappedCommand() throws {
        let size = TerminalSize(cols: 100, rows: 30)
        let frame = Fixtures.render(
            Fixtures.uploading, size: size, state: UIState(size: size, selected: 5, pane: .detail))
        let lines = frame.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let first = lines.firstIndex { $0.hasPrefix("  curl -sS \\") }
        #expect(first != nil, "\(frame.text)")
        guard let first else { return }
        #expect(
            lines[first..<first + 5].map { $0.trimmingSuffix() } == [
                "  curl -sS \\",
                "    -X POST \\",
                "    -H \"Authorization: Bearer $UPLOADER_TOKEN\" \\",
                "    -F files=@/home/ana/Pictures/pet/broken.png \\",
                "    https://api.example.com/ai/images/42",
            ])
        // A narrow pane wraps a long line so that the rows, selected and pasted, are the same command.
        for cols in [40, 50] {
            let narrow = TerminalSize(cols: cols, rows: 30)
            let pane = Fixtures.render(
                Fixtures.uploading, size: narrow, state: UIState(size: narrow, selected: 5, pane: .detail))
            let rows = pane.text.split(separator: "\n", omittingEmptySubsequences: false).map {
                String($0).trimmingSuffix()
            }
            let start = try #require(rows.firstIndex { $0.hasPrefix("  curl ") }, "\(pane.text)")
            let end = try #require(rows[start...].firstIndex { !$0.hasSuffix("\\") }, "\(pane.text)")
            let shown = Array(rows[start...end])
            #expect(!shown.contains { $0.contains("…") }, "\(pane.text)")
            #expect(shown.allSatisfy { $0.count < cols }, "\(pane.text)")
            #expect(
                try ShellWords.of(shown.joined(separator: "\n"))
                    == ShellWords.of(Fixtures.uploading.files[5].curlCommand))
        }
    }

    @Test("words longer than a row are cut where the shell joins them again: in single and double quotes and bare")
    func wrapLongWords() throws {
        let command =
            "curl --fail-with-body -F 'file=@\"/home/ana/Pictures/semi;colon,type=x.bin\";type=image/jpeg;filename=\"it'\\''s.bin\"' "
            + "-H \"Authorization: Bearer $UPLOADER_TOKEN\" http://127.0.0.1:8080/datasets/pet-42/images/very/long/path"
        #expect(try ShellWords.of(command).count == 6)
        for width in [12, 20, 33, 50] {
            let rows = CommandLines.wrap(CommandLines.split(command), width: width, margin: 2)
            #expect(rows.allSatisfy { $0.count <= width }, "\(width): \(rows)")
            #expect(try ShellWords.of(rows.joined(separator: "\n")) == ShellWords.of(command), "\(width): \(rows)")
        }
    }
}

/// The words `sh` makes of a command line (the first, `curl`, replaced by a printer), `$UPLOADER_TOKEN` unset.
enum ShellWords {
    static func of(_ command: String) throws -> [String] {
        let script = "printf '%s\\0' " + command.drop { $0 == " " }.drop { $0 != " " }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.environment = [:]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\0").map(String.init)
    }
}

extension String {
    func trimmingSuffix() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
