import Testing
import UploadDomain

@testable import UploaderTUI

@Suite("Help scrolling")
struct HelpScrollTests {
    let size = TerminalSize(cols: 80, rows: 24)
    let renderer = Fixtures.renderer()

    /// The help of a run in its own process, which adds `d`: at 80x24 one row more than the box holds.
    func help(selected: Int = 0) -> UIState {
        var state = UIState(size: size, selected: selected, pane: .help)
        state.canDetach = true
        return state
    }

    @Test("a help taller than its box says it scrolls, and scrolled to its end shows d and q; one that fits says not")
    func scrollsToItsEnd() {
        var state = help()
        let top = renderer.render(Fixtures.uploading, state, size: size).text
        #expect(top.contains("↑↓ PgUp PgDn scroll · Esc closes") && top.contains("▼"), "\(top)")
        #expect(!top.contains("quit; the run stops unless others watch it"), "\(top)")
        let limit = renderer.helpScrollLimit(Fixtures.uploading, size: size, canDetach: true, replay: false)
        #expect(limit == 1)
        state.helpScroll = limit
        let bottom = renderer.render(Fixtures.uploading, state, size: size).text
        #expect(bottom.contains("detach: the run goes on without the screen"), "\(bottom)")
        #expect(bottom.contains("quit; the run stops unless others watch it"), "\(bottom)")
        #expect(bottom.contains("▲") && !bottom.contains("more in a taller terminal"), "\(bottom)")
        // A run of one process has no d: every key fits at 80x24, and nothing says it scrolls.
        let whole = renderer.render(Fixtures.uploading, UIState(size: size, pane: .help), size: size).text
        #expect(whole.contains("quit (asks y/n while uploads run)"), "\(whole)")
        #expect(!whole.contains("scroll · Esc closes"), "\(whole)")
    }

    @Test("while the help is open the arrows, pages, Home and End scroll it, not the selection; closed, they select")
    func keysScroll() {
        var state = help(selected: 2)
        for key: Key in [.down, .down, .up] { state = KeyMap.update(state, .key(key), Fixtures.uploading).state }
        #expect(state.helpScroll == 1 && state.selected == 2)
        state = KeyMap.update(state, .key(.pageDown), Fixtures.uploading).state
        let layout = Layout(size: size)
        #expect(state.helpScroll == 1 + layout.footerRow - layout.toastRow - 3 && state.selected == 2)
        state = KeyMap.update(state, .key(.home), Fixtures.uploading).state
        #expect(state.helpScroll == 0)
        state = KeyMap.update(state, .key(.end), Fixtures.uploading).state
        #expect(state.helpScroll > 0 && state.selected == 2)
        // Opened again, it starts at its top.
        state = KeyMap.update(state, .key(.character("?")), Fixtures.uploading).state
        #expect(state.pane == .list && state.helpScroll == 0)
        state = KeyMap.update(state, .key(.character("?")), Fixtures.uploading).state
        #expect(state.pane == .help && state.helpScroll == 0)
        state = KeyMap.update(state, .key(.escape), Fixtures.uploading).state
        state = KeyMap.update(state, .key(.down), Fixtures.uploading).state
        #expect(state.pane == .list && state.selected == 3)
    }

    @Test("keys that act on the selected file wait until the help is closed, and say so; the run's keys still work")
    func selectionKeysWait() {
        // File 2 uploads; file 5 failed.
        for (selected, key) in [(2, "c"), (2, "p"), (2, " "), (5, "r"), (5, "y"), (5, "Y")] {
            let update = KeyMap.update(help(selected: selected), .key(.character(Character(key))), Fixtures.uploading)
            #expect(update.commands.isEmpty && update.effect == nil, "\(key)")
            #expect(update.state.pane == .help, "\(key)")
            #expect(update.state.status?.hasSuffix("? or Esc closes the help first") == true, "\(key)")
        }
        let closed = KeyMap.update(UIState(size: size, selected: 2), .key(.character("c")), Fixtures.uploading)
        #expect(closed.commands == [.cancel(fileID: 2)])
        let wider = KeyMap.update(help(), .key(.character("+")), Fixtures.uploading)
        #expect(wider.commands == [.setConcurrency(5)])
    }
}
