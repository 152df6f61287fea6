import Testing
import UploadDomain

@testable import UploaderTUI

/// The details of a file with a long answer and a long `curl` command: more rows than a 30-row pane holds.
func longDetailFile() -> FileSnapshot {
    let body = (0..<150).map { "word\($0)" }.joined(separator: " ") + " END-OF-ANSWER"
    let fields = (1...12).map { "-F field\($0)=value\($0)" }.joined(separator: " ")
    return FileSnapshot(
        id: 0, name: "answer.jpg", path: "/p/answer.jpg", destination: "https://dest.example/up",
        curlCommand: LazyText { "curl --fail-with-body \(fields) https://final.example/last-line" }, size: 10,
        sent: 10, phase: .done, attempt: 1, httpStatus: 201,
        result: UploadResult(httpStatus: 201, body: body, isJSON: false))
}

@Suite("Detail pane scrolling")
struct DetailScrollTests {
    let snapshot = Fixtures.snapshot([longDetailFile(), Fixtures.file(1, "next.jpg", size: 10, sent: 10, phase: .done)])

    @Test("a tall terminal shows the whole answer and command; a short one scrolls to the command's last line")
    func usesTheRowsItHas() throws {
        let renderer = Fixtures.renderer()
        let tall = TerminalSize(cols: 100, rows: 60)
        let whole = renderer.render(snapshot, UIState(size: tall, pane: .detail), size: tall).text
        #expect(whole.contains("END-OF-ANSWER") && whole.contains("https://final.example/last-line"), "\(whole)")
        #expect(whole.contains(" Esc closes ") && !whole.contains("PgDn scroll"), "\(whole)")

        let size = TerminalSize(cols: 100, rows: 30)
        var state = UIState(size: size, pane: .detail)
        let top = renderer.render(snapshot, state, size: size).text
        #expect(top.contains("answer.jpg") && !top.contains("last-line"), "\(top)")
        #expect(top.contains("↑↓ PgUp PgDn scroll · Esc closes") && top.contains("↑↓ scroll"), "\(top)")
        let limit = renderer.detailScrollLimit(longDetailFile(), preview: nil, size: size)
        #expect(limit > 0)
        state.detailScroll = limit
        let bottom = renderer.render(snapshot, state, size: size).text
        #expect(bottom.contains("https://final.example/last-line") && bottom.contains("-F field12=value12"))
        #expect(!bottom.contains("/p/answer.jpg"), "\(bottom)")
    }

    @Test("while the details are open the arrows and pages scroll them, not the selection; Esc starts them at the top")
    func keysScroll() {
        let size = TerminalSize(cols: 100, rows: 30)
        var state = KeyMap.update(UIState(size: size), .key(.enter), snapshot).state
        #expect(state.pane == .detail)
        state = KeyMap.update(state, .key(.down), snapshot).state
        state = KeyMap.update(state, .key(.down), snapshot).state
        #expect(state.detailScroll == 2 && state.selected == 0)
        state = KeyMap.update(state, .key(.up), snapshot).state
        #expect(state.detailScroll == 1)
        state = KeyMap.update(state, .key(.pageDown), snapshot).state
        let layout = Layout(size: size)
        #expect(state.detailScroll == 1 + layout.footerRow - layout.toastRow - 3 && state.selected == 0)
        state = KeyMap.update(state, .key(.home), snapshot).state
        #expect(state.detailScroll == 0)
        state = KeyMap.update(state, .key(.pageDown), snapshot).state
        state = KeyMap.update(state, .key(.escape), snapshot).state
        #expect(state.pane == .list && state.detailScroll == 0)
        // Closed, the arrows select again.
        state = KeyMap.update(state, .key(.down), snapshot).state
        #expect(state.selected == 1 && state.detailScroll == 0)
    }
}
