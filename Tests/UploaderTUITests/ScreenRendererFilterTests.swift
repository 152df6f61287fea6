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

    @Test("the detail pane shows the curl command unwrapped, one option a line, without borders beside it")
    func unwrappedCommand() {
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
        // A narrow pane cuts a long line with an ellipsis rather than wrapping it.
        let narrow = TerminalSize(cols: 40, rows: 24)
        let cut = Fixtures.render(
            Fixtures.uploading, size: narrow, state: UIState(size: narrow, selected: 5, pane: .detail))
        let long = cut.text.split(separator: "\n").first { $0.hasPrefix("    -H \"Authorization") }
        #expect(long?.hasSuffix("…") == true && long?.count == 39, "\(cut.text)")
    }
}

extension String {
    func trimmingSuffix() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
