import CNcurses
import Testing
import UploadDomain

@testable import UploaderTUI

@Suite("Mouse")
struct MouseTests {
    let size = TerminalSize(cols: 100, rows: 30)

    func update(_ state: UIState, _ mouse: MouseEvent, _ snapshot: UploadSnapshot = Fixtures.uploading) -> Update {
        KeyMap.update(state, .mouse(mouse), snapshot)
    }

    @Test("the shim's packed events decode to press and wheel at their cell; other codes are dropped")
    func decoding() {
        func pack(_ action: Int32, x: UInt32, y: UInt32) -> UInt32 { UInt32(action) << 24 | y << 12 | x }
        #expect(CursesTerminal.mouse(packed: pack(CN_MOUSE_PRESS, x: 17, y: 9)) == MouseEvent(.press, x: 17, y: 9))
        #expect(CursesTerminal.mouse(packed: pack(CN_MOUSE_WHEEL_UP, x: 0, y: 0)) == MouseEvent(.wheelUp, x: 0, y: 0))
        #expect(
            CursesTerminal.mouse(packed: pack(CN_MOUSE_WHEEL_DOWN, x: 4095, y: 4095))
                == MouseEvent(.wheelDown, x: 4095, y: 4095))
        #expect(CursesTerminal.mouse(packed: pack(0, x: 3, y: 3)) == nil)
        #expect(CursesTerminal.mouse(packed: pack(9, x: 3, y: 3)) == nil)
    }

    @Test("a click on a file row selects that row, scrolled or not; clicks elsewhere change nothing")
    func clickSelects() {
        let layout = Layout(size: size)
        let state = UIState(size: size)
        let third = update(state, MouseEvent(.press, x: 5, y: layout.listTop + 2)).state
        #expect(third.selected == 2 && third.pane == .list)
        for y in [0, layout.aggregateRow, layout.columnHeaderRow, layout.footerRow, layout.listTop + 20] {
            #expect(update(third, MouseEvent(.press, x: 5, y: y)).state == third, "row \(y)")
        }
        let files = (0..<100).map { Fixtures.file($0, "f\($0).jpg", size: 10, sent: 0, phase: .queued, attempt: 0) }
        let long = Fixtures.snapshot(files)
        let scrolled = UIState(size: size, selected: 50, scrollTop: 45)
        #expect(update(scrolled, MouseEvent(.press, x: 5, y: layout.listTop), long).state.selected == 45)
    }

    @Test("a click on a failed row's error opens its details; on its name it only selects it")
    func clickOnError() throws {
        let layout = Layout(size: size)
        let failed = try #require(Fixtures.uploading.files.firstIndex { $0.phase == .failed })
        let errorX = Columns(cols: size.cols).progressX + 3
        let frame = Fixtures.render(Fixtures.uploading, size: size)
        #expect(frame.line(layout.listTop + failed).contains("failed"))
        let opened = update(UIState(size: size), MouseEvent(.press, x: errorX, y: layout.listTop + failed)).state
        #expect(opened.selected == failed && opened.pane == .detail)
        let named = update(UIState(size: size), MouseEvent(.press, x: 3, y: layout.listTop + failed)).state
        #expect(named.selected == failed && named.pane == .list)
        // A row that did not fail opens nothing wherever it is clicked.
        let done = update(UIState(size: size), MouseEvent(.press, x: errorX, y: layout.listTop)).state
        #expect(done.selected == 0 && done.pane == .list)
        // With the details open, a click closes them, as Esc does.
        #expect(update(opened, MouseEvent(.press, x: 50, y: 10)).state.pane == .list)
    }

    @Test("the wheel moves the selection three rows and the list scrolls with it; a prompt ignores the mouse")
    func wheel() {
        let files = (0..<100).map { Fixtures.file($0, "f\($0).jpg", size: 10, sent: 0, phase: .queued, attempt: 0) }
        let snapshot = Fixtures.snapshot(files)
        var state = UIState(size: size)
        for _ in 0..<10 { state = update(state, MouseEvent(.wheelDown, x: 1, y: 12), snapshot).state }
        #expect(state.selected == 30)
        #expect(state.scrollTop > 0 && state.scrollTop <= 30)
        state = update(state, MouseEvent(.wheelUp, x: 1, y: 12), snapshot).state
        #expect(state.selected == 27)
        for _ in 0..<20 { state = update(state, MouseEvent(.wheelUp, x: 1, y: 12), snapshot).state }
        #expect(state.selected == 0 && state.scrollTop == 0)

        var asking = UIState(size: size)
        asking.prompt = .quit
        let after = update(asking, MouseEvent(.press, x: 5, y: Layout(size: size).listTop + 3), snapshot)
        #expect(after.state == asking && after.commands.isEmpty)
    }
}
