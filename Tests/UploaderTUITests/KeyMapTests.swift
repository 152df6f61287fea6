import Testing
import UploadDomain

@testable import UploaderTUI

/// Plays events through `KeyMap.update` and collects what came out.
private struct Script {
    var state: UIState
    var commands: [UploadCommand] = []
    var effects: [Effect] = []

    init(size: TerminalSize = TerminalSize(cols: 100, rows: 30), selected: Int = 0) {
        state = UIState(size: size, selected: selected)
    }

    mutating func play(_ events: [TerminalEvent], _ snapshot: UploadSnapshot) {
        for event in events {
            let update = KeyMap.update(state, event, snapshot)
            state = update.state
            commands += update.commands
            if let effect = update.effect { effects.append(effect) }
        }
    }
}

private func keys(_ text: String) -> [TerminalEvent] {
    text.map { .key(.character($0)) }
}

@Suite("KeyMap")
struct KeyMapTests {
    @Test("arrows, pages, Home and End move the selection and keep it on screen")
    func navigation() {
        let files = (0..<100).map { Fixtures.file($0, "f\($0).jpg", size: 10, sent: 0, phase: .queued, attempt: 0) }
        let snapshot = Fixtures.snapshot(files)
        var script = Script()
        let height = Layout(size: script.state.size).listHeight
        script.play([.key(.down), .key(.down), .key(.up)], snapshot)
        #expect(script.state.selected == 1)
        script.play([.key(.up), .key(.up)], snapshot)
        #expect(script.state.selected == 0)
        script.play([.key(.pageDown)], snapshot)
        #expect(script.state.selected == height - 1)
        script.play([.key(.end)], snapshot)
        #expect(script.state.selected == 99)
        #expect(script.state.scrollTop == 100 - height)
        script.play([.key(.down)], snapshot)
        #expect(script.state.selected == 99)
        script.play([.key(.pageUp)], snapshot)
        #expect(script.state.selected == 99 - (height - 1))
        #expect(
            script.state.selected >= script.state.scrollTop && script.state.selected < script.state.scrollTop + height)
        script.play([.key(.home)], snapshot)
        #expect(script.state.selected == 0 && script.state.scrollTop == 0)
        #expect(script.commands.isEmpty)
    }

    @Test("a replayed run, which has ended, takes no key that would command it and says so; q leaves at once")
    func replayTakesNoCommand() {
        var script = Script(selected: 6)
        script.state.isReplay = true
        for key in "rRcCp +=-_[]" {
            script.play(keys(String(key)), Fixtures.fail)
            #expect(script.state.status == "this run has ended: keys cannot change it", "\(key)")
        }
        #expect(script.commands.isEmpty && script.state.prompt == nil)
        script.play(keys("jq"), Fixtures.fail)
        #expect(script.effects == [.quit])
    }

    @Test("r retries the selected failed file; with nothing retryable selected it retries every file not done")
    func retry() {
        var script = Script(selected: 5)
        script.play(keys("r"), Fixtures.uploading)
        #expect(script.commands == [.retry(fileID: 5)])
        script = Script(selected: 2)
        script.play(keys("r"), Fixtures.uploading)
        #expect(script.commands == [.retryUnfinished])
        script = Script(selected: 7)
        script.play(keys("r"), Fixtures.fail)
        #expect(script.commands == [.retry(fileID: 7)])
        script = Script()
        script.play(keys("rR"), Fixtures.done)
        #expect(script.commands.isEmpty)
        script.play(keys("R"), Fixtures.fail)
        #expect(script.commands == [.retryUnfinished])
        // A batch stopped with none failed: its cancelled files are what R sends again.
        let stopped = Fixtures.snapshot([Fixtures.file(0, "a.jpg", size: 10, sent: 0, phase: .cancelled, attempt: 1)])
        script = Script()
        script.play(keys("R"), stopped)
        #expect(script.commands == [.retryUnfinished])
    }

    @Test("c cancels the selected unfinished file; C asks and cancels all only on y")
    func cancel() {
        var script = Script(selected: 2)
        script.play(keys("c"), Fixtures.uploading)
        #expect(script.commands == [.cancel(fileID: 2)])
        script = Script(selected: 0)
        script.play(keys("c"), Fixtures.uploading)
        #expect(script.commands.isEmpty)
        script.play(keys("C"), Fixtures.uploading)
        #expect(script.state.prompt == .cancelAll)
        script.play(keys("n"), Fixtures.uploading)
        #expect(script.state.prompt == nil)
        #expect(script.commands.isEmpty)
        script.play([.key(.character("C")), .key(.escape)], Fixtures.uploading)
        #expect(script.commands.isEmpty)
        script.play(keys("Cy"), Fixtures.uploading)
        // C stops gracefully: the queued files are cancelled, those in flight finish.
        #expect(script.commands == [.stop])
        #expect(script.state.prompt == nil)
        #expect(!script.state.quitWhenIdle)
        // Once stopping, C aborts at once, without asking again.
        script.play(keys("C"), Fixtures.stopping)
        #expect(script.commands == [.stop, .cancelAll])
        #expect(script.state.prompt == nil)
    }

    @Test("p toggles pause only on an active file")
    func pause() {
        var script = Script(selected: 3)
        script.play(keys("p"), Fixtures.uploading)
        #expect(script.commands == [.togglePause(fileID: 3)])
        script = Script(selected: 6)
        script.play(keys("p"), Fixtures.uploading)
        #expect(script.commands.isEmpty)
    }

    @Test("+ and - change concurrency by one from the snapshot's value, never below 1")
    func concurrency() {
        var script = Script()
        script.play(keys("-"), Fixtures.uploading)
        #expect(script.commands == [.setConcurrency(3)])
        script = Script()
        script.play(keys("+"), Fixtures.uploading)
        #expect(script.commands == [.setConcurrency(5)])
        script = Script()
        script.play(keys("-"), Fixtures.snapshot(Fixtures.uploading.files, concurrency: 1))
        #expect(script.commands.isEmpty)
    }

    @Test("[ and ] step the total speed cap down and up the ladder; past the top, ] removes it")
    func bandwidthCap() {
        let mib: Int64 = 1 << 20
        let capped = { (limit: Int64?) in
            Fixtures.snapshot(Fixtures.uploading.files, rate: 2_202_009, bandwidthLimit: limit)
        }
        for (key, limit, asked) in [("[", 2 * mib, mib), ("]", 2 * mib, 5 * mib), ("]", 100 * mib, nil)] {
            var script = Script()
            script.play(keys(key), capped(limit))
            #expect(script.commands == [.setBandwidthLimit(asked)], "\(key) at \(limit)")
        }
        var script = Script()
        script = Script()
        script.play(keys("["), capped(2 * mib))
        script.play([.tick], capped(mib))
        script.play(keys("]"), capped(mib))
        #expect(script.commands == [.setBandwidthLimit(mib), .setBandwidthLimit(2 * mib)])
    }

    /// A screen attached to a run in its own process gets the new width a moment after asking: `++` must not ask
    /// for the same width twice.
    @Test("quick presses each count: + - [ ] step from what was last asked until a snapshot shows it")
    func quickPresses() {
        let mib: Int64 = 1 << 20
        var script = Script()
        script.play(keys("+++-"), Fixtures.uploading)
        #expect(script.commands == [.setConcurrency(5), .setConcurrency(6), .setConcurrency(7), .setConcurrency(6)])
        // The run shows 6: from then on the snapshot counts again.
        script.play([.tick], Fixtures.snapshot(Fixtures.uploading.files, concurrency: 6))
        #expect(script.state.asked.concurrency == nil)
        script.commands = []
        script.play(keys("]]["), Fixtures.snapshot(Fixtures.uploading.files, bandwidthLimit: 256 << 10))
        #expect(
            script.commands == [.setBandwidthLimit(512 << 10), .setBandwidthLimit(mib), .setBandwidthLimit(512 << 10)])
        // A request the run never shows gives way to the snapshot after a second of ticks.
        let stale = Fixtures.snapshot(Fixtures.uploading.files, concurrency: 2, bandwidthLimit: 256 << 10)
        script.play(keys("+"), stale)
        script.play(Array(repeating: .tick, count: UIState.AskedSettings.patience), stale)
        #expect(script.state.asked == UIState.AskedSettings())
        script.commands = []
        script.play(keys("+"), stale)
        #expect(script.commands == [.setConcurrency(3)])
    }

    @Test("[ without a cap starts one below the measured rate; ] without a cap does nothing")
    func bandwidthCapFromNone() {
        var script = Script()
        // Fixtures.uploading moves 2.1 MiB/s: the first rung below is 2 MiB/s.
        script.play(keys("]"), Fixtures.uploading)
        #expect(script.commands.isEmpty)
        script.play(keys("["), Fixtures.uploading)
        #expect(script.commands == [.setBandwidthLimit(2 << 20)])
        // At the lowest rung [ sends nothing more.
        script = Script()
        script.play(keys("["), Fixtures.snapshot(Fixtures.uploading.files, bandwidthLimit: 256 << 10))
        #expect(script.commands.isEmpty)
    }

    @Test("Enter opens details, Esc closes them, ? toggles help")
    func panes() {
        var script = Script()
        script.play([.key(.enter)], Fixtures.uploading)
        #expect(script.state.pane == .detail)
        script.play([.key(.escape)], Fixtures.uploading)
        #expect(script.state.pane == .list)
        script.play(keys("?"), Fixtures.uploading)
        #expect(script.state.pane == .help)
        script.play(keys("?"), Fixtures.uploading)
        #expect(script.state.pane == .list)
        script.play([.key(.character("?")), .key(.escape)], Fixtures.uploading)
        #expect(script.state.pane == .list)
    }

    @Test("q quits at once when idle; while transfers are active it asks, y stops and quits once idle, q aborts")
    func quit() {
        var script = Script()
        script.play(keys("q"), Fixtures.done)
        #expect(script.effects == [.quit])
        script = Script()
        script.play(keys("q"), Fixtures.uploading)
        #expect(script.effects.isEmpty)
        #expect(script.state.prompt == .quit)
        script.play(keys("x"), Fixtures.uploading)
        #expect(script.effects.isEmpty && script.state.prompt == nil)
        script.play(keys("qy"), Fixtures.uploading)
        #expect(script.effects.isEmpty)
        #expect(script.commands == [.stop])
        #expect(script.state.quitWhenIdle)
        script.play(keys("q"), Fixtures.stopping)
        #expect(script.commands == [.stop, .cancelAll])
        #expect(script.effects == [.quit])
    }

    @Test("attached: with other screens q leaves as d and stops nothing; alone it asks, d leaves, y stops")
    func quitAttached() {
        var script = Script()
        script.state.canDetach = true
        script.state.otherScreens = 1
        script.play(keys("q"), Fixtures.uploading)
        #expect(script.effects == [.detach] && script.commands.isEmpty && script.state.prompt == nil)
        // Nor does q abort a stop another screen began.
        script.effects = []
        script.play(keys("q"), Fixtures.stopping)
        #expect(script.effects == [.detach] && script.commands.isEmpty)

        script = Script()
        script.state.canDetach = true
        script.play(keys("qd"), Fixtures.uploading)
        #expect(script.effects == [.detach] && script.commands.isEmpty)
        // A screen that attached while the question was open keeps the run going: y only leaves.
        script = Script()
        script.state.canDetach = true
        script.play(keys("q"), Fixtures.uploading)
        script.state.otherScreens = 1
        script.play(keys("y"), Fixtures.uploading)
        #expect(script.effects == [.detach] && script.commands.isEmpty && !script.state.quitWhenIdle)
        script = Script()
        script.state.canDetach = true
        script.play(keys("qy"), Fixtures.uploading)
        #expect(script.commands == [.stop] && script.state.quitWhenIdle)
    }

    @Test("a resize keeps the selection visible in the smaller list")
    func resize() {
        let files = (0..<50).map { Fixtures.file($0, "f\($0).jpg", size: 10, sent: 0, phase: .queued, attempt: 0) }
        let snapshot = Fixtures.snapshot(files)
        var script = Script(selected: 0)
        script.play([.key(.end), .resize(cols: 40, rows: 12)], snapshot)
        let height = Layout(size: TerminalSize(cols: 40, rows: 12)).listHeight
        #expect(script.state.size == TerminalSize(cols: 40, rows: 12))
        #expect(script.state.scrollTop == 50 - height)
        script.play([.resize(cols: 20, rows: 5), .key(.up), .resize(cols: 100, rows: 30)], snapshot)
        #expect(script.state.selected == 48)
    }

    @Test("keys on an empty batch do nothing and do not crash")
    func emptyBatch() {
        var script = Script()
        script.play([.key(.down), .key(.end), .key(.enter), .key(.pageDown)] + keys("rcpCR"), Fixtures.snapshot([]))
        #expect(script.state.selected == 0)
        #expect(script.state.pane == .list)
        #expect(script.commands.isEmpty)
    }

    @Test("f cycles all, active, failed, done; the selection stays on a visible row")
    func filterCycle() {
        var script = Script(selected: 5)
        var seen: [ListFilter] = []
        for _ in 0..<4 {
            script.play(keys("f"), Fixtures.uploading)
            seen.append(script.state.filter)
            let visible = script.state.visibleRows(Fixtures.uploading.files)
            #expect(visible.indices.contains(script.state.selected) || visible.isEmpty)
        }
        #expect(seen == [.active, .failed, .done, .all])
        script.play(keys("ff"), Fixtures.uploading)
        let visible = script.state.visibleRows(Fixtures.uploading.files)
        #expect(Array(visible) == [5])
        #expect(script.state.selectedFile(in: Fixtures.uploading.files, visible: visible)?.name == "broken.png")
        #expect(script.commands.isEmpty)
    }

    @Test("/ searches names as they are typed, ignoring case; Enter keeps the search, Esc clears it")
    func search() {
        let files = Fixtures.uploading.files
        var script = Script(selected: 4)
        script.play(keys("/DOg"), Fixtures.uploading)
        #expect(script.state.isSearching)
        #expect(script.state.search == "DOg")
        #expect(Array(script.state.visibleRows(files)) == [2])
        #expect(script.state.selected == 0)
        // While typing, q is a letter, not quit.
        script.play(keys("q") + [.key(.backspace), .key(.enter)], Fixtures.uploading)
        #expect(script.effects.isEmpty)
        #expect(!script.state.isSearching && script.state.search == "DOg")
        #expect(Array(script.state.visibleRows(files)) == [2])
        script.play([.key(.escape)], Fixtures.uploading)
        #expect(script.state.search.isEmpty)
        #expect(script.state.visibleRows(files).count == 8)
        // The file found stays selected once the search is gone.
        #expect(script.state.selected == 2)
        script.play(keys("/cat") + [.key(.escape)], Fixtures.uploading)
        #expect(!script.state.isSearching && script.state.search.isEmpty)
    }

    @Test("Esc on the list drops the filter as it drops the search: every file shows again, the selection kept")
    func escapeShowsAll() {
        let files = Fixtures.uploading.files
        var script = Script()
        script.play(keys("ff"), Fixtures.uploading)
        #expect(script.state.filter == .failed && Array(script.state.visibleRows(files)) == [5])
        script.play([.key(.escape)], Fixtures.uploading)
        #expect(script.state.filter == .all && !script.state.isFiltered)
        #expect(script.state.visibleRows(files).count == 8)
        #expect(script.state.selectedFile(in: files, visible: script.state.visibleRows(files))?.name == "broken.png")
        // "No files match — f or Esc shows more": Esc does.
        script = Script()
        script.play(keys("ff"), Fixtures.done)
        #expect(script.state.visibleRows(Fixtures.done.files).isEmpty)
        script.play([.key(.escape)], Fixtures.done)
        #expect(script.state.visibleRows(Fixtures.done.files).count == 8)
        // With a pane open, Esc closes it first and the filter stays.
        script = Script()
        script.play(keys("ff") + [.key(.enter), .key(.escape)], Fixtures.uploading)
        #expect(script.state.pane == .list && script.state.filter == .failed)
        #expect(script.commands.isEmpty)
    }

    @Test("a notice gives the footer back to the key hints at the next key")
    func noticeClears() {
        var script = Script()
        script.state.notice = "8 of 24 files carry a GPS location; --strip-metadata removes it"
        script.play([.tick], Fixtures.uploading)
        #expect(script.state.notice != nil)
        script.play([.key(.down)], Fixtures.uploading)
        #expect(script.state.notice == nil)
    }

    @Test("y copies the selected file's curl command and Y its error line, with a note in the footer")
    func copy() {
        let file = Fixtures.uploading.files[5]
        var script = Script(selected: 5)
        script.play(keys("y"), Fixtures.uploading)
        #expect(script.effects == [.setClipboard(file.curlCommand)])
        #expect(file.curlCommand.contains("$UPLOADER_TOKEN"))
        #expect(script.state.status == "copied curl command (\(file.curlCommand.utf8.count) bytes)")
        script.play(keys("Y"), Fixtures.uploading)
        let line = Sanitizer.displayName(Fixtures.serverError.forFile(file.name).description)
        #expect(script.effects.last == .setClipboard(line))
        #expect(line.hasPrefix(file.name + ": "))
        #expect(script.state.status?.hasPrefix("copied error line") == true)
        // A file without an error copies nothing and says so; the next key clears the note.
        script.play([.key(.home)] + keys("Y"), Fixtures.uploading)
        #expect(script.effects.count == 2)
        #expect(script.state.status == "no error line to copy for cat-001.jpg")
        script.play([.key(.down)], Fixtures.uploading)
        #expect(script.state.status == nil)
        #expect(script.commands.isEmpty)
    }
}
