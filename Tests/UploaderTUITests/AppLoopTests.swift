import Synchronization
import Testing
import UploadDomain

@testable import UploaderTUI

/// A controller that serves queued snapshots and records commands.
private final class ScriptedController: UploadController {
    private let state: Mutex<(snapshots: [UploadSnapshot], commands: [UploadCommand])>
    private let idleAtOnce: Bool
    private let afterStop: UploadSnapshot?

    /// `idleAtOnce`: `waitUntilIdle` returns at once; otherwise it waits until the loop cancels it. `afterStop`: the
    /// snapshot served from a `stop` on.
    init(_ snapshots: [UploadSnapshot], idleAtOnce: Bool = false, afterStop: UploadSnapshot? = nil) {
        state = Mutex((snapshots, []))
        self.idleAtOnce = idleAtOnce
        self.afterStop = afterStop
    }

    func waitUntilIdle() async {
        guard !idleAtOnce else { return }
        try? await Task.sleep(for: .seconds(3600))
    }

    /// Serves the next snapshot, repeating the last one.
    func snapshot() async -> UploadSnapshot {
        state.withLock { state in
            state.snapshots.count > 1 ? state.snapshots.removeFirst() : state.snapshots[0]
        }
    }

    func handle(_ command: UploadCommand) async {
        state.withLock { state in
            state.commands.append(command)
            if command == .stop, let afterStop { state.snapshots = [afterStop] }
        }
    }

    var commands: [UploadCommand] { state.withLock { $0.commands } }
}

/// A clock that moves 100 ms forward each time it is read, so every frame is due.
private final class SteppingClock: UploadClock {
    private let ticks = Atomic<Int64>(0)
    let step: Duration

    init(step: Duration = .milliseconds(100)) {
        self.step = step
    }

    var now: Duration { step * ticks.add(1, ordering: .relaxed).newValue }

    func sleep(for duration: Duration) async throws {}
}

@Suite("AppLoop")
struct AppLoopTests {
    let size = TerminalSize(cols: 100, rows: 30)
    let configuration = TUIConfiguration(source: "~/Pictures/pet", destination: "api.example.com/ai/images/42")

    @Test("a key script sends commands, stops after q y, leaves once the batch is idle, and closes the terminal")
    func keyScript() async {
        var stopped = Fixtures.fail
        stopped.stopping = StopState(graceLeft: nil)
        let controller = ScriptedController([Fixtures.uploading], afterStop: stopped)
        let terminal = InMemoryTerminal(size: size)
        terminal.send([
            .tick, .key(.down), .key(.down), .key(.character("c")), .key(.character("+")), .key(.character("q")),
            .key(.character("y")),
        ])
        let outcome = await TUIApp.run(
            controller: controller, terminal: terminal, configuration: configuration, clock: SteppingClock())
        #expect(outcome == .finished)
        #expect(controller.commands == [.cancel(fileID: 2), .setConcurrency(5), .stop])
        #expect(terminal.isClosed)
        #expect(terminal.screen.text.contains("Upload failed"))
    }

    @Test("d leaves a run of its own process going: the loop ends detached, no command sent; help lists d")
    func detach() async {
        let controller = ScriptedController([Fixtures.uploading])
        let terminal = InMemoryTerminal(size: size)
        terminal.send([.tick, .key(.character("?")), .tick])
        var detachable = configuration
        detachable.canDetach = true
        let task = Task {
            await TUIApp.run(
                controller: controller, terminal: terminal, configuration: detachable, clock: SteppingClock())
        }
        for _ in 0..<2000 where !terminal.screen.text.contains("detach: the run goes on") {
            try? await Task.sleep(for: .milliseconds(1))
        }
        #expect(terminal.screen.text.contains("detach: the run goes on without the screen"))
        terminal.send([.key(.character("?")), .key(.character("d"))])
        #expect(await task.value == .detached)
        #expect(controller.commands.isEmpty)
        #expect(terminal.isClosed)
    }

    @Test("the loop keeps the scroll within the pane: after End one key up shows the row before the last")
    func endThenUp() async {
        let snapshot = Fixtures.snapshot([
            longDetailFile(), Fixtures.file(1, "next.jpg", size: 10, sent: 10, phase: .done),
        ])
        let terminal = InMemoryTerminal(size: size)
        terminal.send([.tick, .key(.enter), .key(.end), .key(.up), .tick, .key(.character("q"))])
        let outcome = await TUIApp.run(
            controller: ScriptedController([snapshot]), terminal: terminal,
            configuration: configuration, clock: SteppingClock())
        #expect(outcome == .finished)
        let text = terminal.screen.text
        #expect(text.contains("-F field12=value12") && !text.contains("last-line"), "\(text)")
    }

    @Test("at 80x24 the loop keeps the help's scroll within it: after End one key up shows the row before the last")
    func helpEndThenUp() async {
        let controller = ScriptedController([Fixtures.uploading])
        let terminal = InMemoryTerminal(size: TerminalSize(cols: 80, rows: 24))
        terminal.send([
            .tick, .key(.down), .key(.down), .key(.character("?")), .key(.end), .key(.up), .key(.character("c")),
            .tick, .key(.character("d")),
        ])
        var detachable = configuration
        detachable.canDetach = true
        let outcome = await TUIApp.run(
            controller: controller, terminal: terminal, configuration: detachable, clock: SteppingClock())
        #expect(outcome == .detached)
        let text = terminal.screen.text
        #expect(text.contains("detach: the run goes on") && !text.contains("quit; the run stops"), "\(text)")
        // c waited for the help to close: the file behind it is not cancelled.
        #expect(controller.commands.isEmpty && text.contains("closes the help first"), "\(text)")
    }

    @Test("in a run of one process, d does nothing and help does not offer it")
    func noDetach() async {
        let controller = ScriptedController([Fixtures.done])
        let terminal = InMemoryTerminal(size: size)
        terminal.send([.tick, .key(.character("d")), .key(.character("?")), .tick, .key(.character("q"))])
        let outcome = await TUIApp.run(
            controller: controller, terminal: terminal, configuration: configuration, clock: SteppingClock())
        #expect(outcome == .finished)
        #expect(!terminal.screen.text.contains("detach"))
    }

    @Test("a notice found while the batch runs takes the footer's place")
    func notice() async {
        let controller = ScriptedController([Fixtures.uploading])
        let terminal = InMemoryTerminal(size: size)
        let (notices, sink) = AsyncStream.makeStream(of: String.self)
        var configuration = configuration
        configuration.notices = notices
        let task = Task {
            await TUIApp.run(
                controller: controller, terminal: terminal, configuration: configuration, clock: SteppingClock())
        }
        sink.yield("3 of 8 files carry a GPS location; --strip-metadata removes it")
        terminal.send(.tick)
        let footer = Layout(size: size).footerRow
        for _ in 0..<2000 where !terminal.screen.text.contains("GPS location") {
            try? await Task.sleep(for: .milliseconds(1))
        }
        let row = terminal.screen.text.split(separator: "\n", omittingEmptySubsequences: false)[footer]
        #expect(row.contains("3 of 8 files carry a GPS location; --strip-metadata removes it"), "\(row)")
        #expect(!row.contains("Enter details"))
        task.cancel()
        _ = await task.value
    }

    @Test("while stopping, the toast says how many uploads finish and how to abort; q aborts and leaves")
    func stoppingScreen() async {
        let controller = ScriptedController([Fixtures.stopping])
        let terminal = InMemoryTerminal(size: size)
        terminal.send([.tick, .key(.character("q"))])
        let outcome = await TUIApp.run(
            controller: controller, terminal: terminal, configuration: configuration, clock: SteppingClock())
        #expect(outcome == .quitEarly)
        #expect(controller.commands == [.cancelAll])
        #expect(terminal.screen.text.contains("Finishing 4 uploads — Ctrl-C again to abort"))
        #expect(terminal.screen.text.contains("Nothing new starts · 0:07 left, then they are aborted"))
    }

    @Test("the first flush writes every row, later ones only the rows that changed")
    func writesOnlyChangedRows() async {
        var later = Fixtures.uploading
        later.files[7].phase = .uploading
        later.files[7].sent = 450
        later = Fixtures.snapshot(later.files, rate: Fixtures.uploading.progress.bytesPerSecond, eta: .seconds(9))
        let controller = ScriptedController([Fixtures.uploading, Fixtures.uploading, later])
        let terminal = InMemoryTerminal(size: size)
        terminal.send([.tick, .tick])
        terminal.finishEvents()
        _ = await TUIApp.run(
            controller: controller, terminal: terminal, configuration: configuration, clock: SteppingClock())
        let writes = terminal.writes
        #expect(writes.first == Array(0..<30))
        let layout = Layout(size: size)
        // tick 1: same snapshot -> nothing to write; tick 2: row 7 and the figures it moves.
        let changed = Set(writes.dropFirst().flatMap { $0 })
        #expect(changed.contains(layout.listTop + 7))
        #expect(!changed.contains(layout.listTop + 0))
        #expect(!changed.contains(layout.footerRow))
        #expect(changed.count < 10)
    }

    @Test("frames are throttled to 30 per second")
    func throttle() {
        var flusher = FrameFlusher()
        let frame = Frame(size: TerminalSize(cols: 10, rows: 3))
        #expect(flusher.isDue(at: .zero))
        _ = flusher.flush(frame, at: .zero)
        #expect(!flusher.isDue(at: .milliseconds(20)))
        #expect(flusher.isDue(at: .milliseconds(34)))
        #expect(flusher.flush(frame, at: .milliseconds(34)).isEmpty)
        var other = frame
        other.put("x", x: 0, y: 1)
        #expect(flusher.flush(other, at: .milliseconds(68)) == [1])
        #expect(flusher.flush(Frame(size: TerminalSize(cols: 11, rows: 3)), at: .milliseconds(102)) == [0, 1, 2])
    }

    @Test("with exitWhenDone the loop ends once the batch is idle")
    func exitWhenDone() async {
        let controller = ScriptedController([Fixtures.uploading, Fixtures.done])
        let terminal = InMemoryTerminal(size: size)
        terminal.send([.tick])
        var configuration = configuration
        configuration.exitWhenDone = true
        let outcome = await TUIApp.run(
            controller: controller, terminal: terminal, configuration: configuration, clock: SteppingClock())
        #expect(outcome == .finished)
        #expect(terminal.screen.text.contains("✔ Upload complete"))
        #expect(terminal.isClosed)
    }

    @Test(
        "with exitWhenDone the loop ends when the batch goes idle, with no tick or key to wake it",
        .timeLimit(.minutes(1)))
    func exitWhenIdleWithoutEvents() async {
        let controller = ScriptedController([Fixtures.uploading, Fixtures.done], idleAtOnce: true)
        let terminal = InMemoryTerminal(size: size)
        var configuration = configuration
        configuration.exitWhenDone = true
        let outcome = await TUIApp.run(
            controller: controller, terminal: terminal, configuration: configuration, clock: SteppingClock())
        #expect(outcome == .finished)
        #expect(terminal.screen.text.contains("✔ Upload complete"), "the final frame is drawn before leaving")
        #expect(terminal.isClosed)
    }

    @Test("without exitWhenDone the finished screen stays until q")
    func staysUntilQuit() async {
        let controller = ScriptedController([Fixtures.done])
        let terminal = InMemoryTerminal(size: size)
        terminal.send([.tick, .tick, .resize(cols: 40, rows: 12), .tick])
        terminal.send(.key(.character("q")))
        let outcome = await TUIApp.run(
            controller: controller, terminal: terminal, configuration: configuration, clock: SteppingClock())
        #expect(outcome == .finished)
        #expect(terminal.screen.size == TerminalSize(cols: 40, rows: 12))
        #expect(terminal.writes.last?.count == 12 || terminal.writes.count >= 2)
    }

    @Test("a cancelled task ends the loop and still closes the terminal")
    func cancellation() async {
        let controller = ScriptedController([Fixtures.uploading])
        let terminal = InMemoryTerminal(size: size)
        let task = Task {
            await TUIApp.run(
                controller: controller, terminal: terminal, configuration: configuration, clock: SteppingClock())
        }
        terminal.send(.tick)
        task.cancel()
        let outcome = await task.value
        #expect(outcome == .quitEarly)
        #expect(terminal.isClosed)
    }

    @Test("the terminal check refuses TERM=dumb")
    func dumbTerminal() {
        let error = TerminalUnavailable(.dumbTerminal, term: "dumb")
        #expect(error.description.contains("TERM=dumb"))
        #expect(TerminalUnavailable(.notATerminal).description.contains("not a terminal"))
    }

    @Test("y and Y write OSC 52 sequences to the terminal, after a search found the file")
    func clipboard() async {
        let controller = ScriptedController([Fixtures.uploading])
        let terminal = InMemoryTerminal(size: size)
        let task = Task {
            await TUIApp.run(
                controller: controller, terminal: terminal, configuration: configuration, clock: SteppingClock())
        }
        terminal.send([.tick, .key(.character("/"))] + "BRO".map { TerminalEvent.key(.character($0)) })
        terminal.send([.key(.enter), .key(.character("y")), .key(.character("Y"))])
        for _ in 0..<2000 where terminal.clipboardWrites.count < 2 { try? await Task.sleep(for: .milliseconds(1)) }
        // `printf %s 'curl -sS -X POST -H "Authorization: Bearer $UPLOADER_TOKEN" -F files=@/home/ana/Pictures/pet/'\
        // 'broken.png https://api.example.com/ai/images/42' | base64 -w0`
        let command =
            "Y3VybCAtc1MgLVggUE9TVCAtSCAiQXV0aG9yaXphdGlvbjogQmVhcmVyICRVUExPQURFUl9UT0tFTiIgLUYgZmlsZXM9QC9ob21lL2Fu"
            + "YS9QaWN0dXJlcy9wZXQvYnJva2VuLnBuZyBodHRwczovL2FwaS5leGFtcGxlLmNvbS9haS9pbWFnZXMvNDI="
        let writes = terminal.clipboardWrites
        #expect(writes.first == "\u{1B}]52;c;" + command + "\u{07}")
        #expect(writes.count == 2 && writes[1].hasPrefix("\u{1B}]52;c;") && writes[1].hasSuffix("\u{07}"))
        task.cancel()
        _ = await task.value
    }
}

@Suite("Scale")
struct ScaleTests {
    static let many: UploadSnapshot = Fixtures.snapshot(
        (0..<10_000).map {
            Fixtures.file(
                $0, "batch/image-\($0).jpg", size: 1_000_000, sent: $0 < 5000 ? 1_000_000 : 0,
                phase: $0 < 5000 ? .done : .queued, attempt: $0 < 5000 ? 1 : 0)
        })

    @Test("10,000 files scroll to the end and the last file shows")
    func scrollToEnd() {
        let size = TerminalSize(cols: 100, rows: 30)
        var state = UIState(size: size)
        state = KeyMap.update(state, .key(.end), Self.many).state
        #expect(state.selected == 9999)
        let frame = Fixtures.renderer().render(Self.many, state, size: size)
        let layout = Layout(size: size)
        #expect(frame.line(layout.listTop + layout.listHeight - 1).contains("batch/image-9999.jpg"))
        #expect(frame.line(layout.footerRow).hasSuffix("10000/10000"))
    }

    @Test("the list's rows: every file in input order unfiltered, only the matches under a filter and a search")
    func visibleRowsOfManyFiles() {
        var state = UIState(size: TerminalSize(cols: 100, rows: 30))
        let all = state.visibleRows(Self.many.files)
        #expect(all.count == 10_000 && all.first == 0 && all[9_999] == 9_999)
        state.filter = .done
        let done = state.visibleRows(Self.many.files)
        #expect(done.count == 5_000 && done.last == 4_999)
        state.search = "IMAGE-42"
        // image-42, image-420…429 and image-4200…4299: the done half only, case ignored.
        let found = state.visibleRows(Self.many.files)
        #expect(found.count == 111 && found.first == 42 && found.last == 4_299)
        state.filter = .failed
        #expect(state.visibleRows(Self.many.files).isEmpty)
    }
}

/// A clock the controller sets as it serves each snapshot: the screen's time of that reading.
private final class ReadingClock: UploadClock {
    private let time = Mutex<Duration>(.zero)

    var now: Duration { time.withLock { $0 } }

    func set(_ value: Duration) {
        time.withLock { $0 = value }
    }

    func sleep(for duration: Duration) async throws {}
}

/// Serves snapshots at given screen times, as a run process's socket delivers them to a screen.
private final class TimedController: UploadController {
    private let script: Mutex<[(screen: Duration, snapshot: UploadSnapshot)]>
    private let clock: ReadingClock

    init(_ script: [(screen: Duration, snapshot: UploadSnapshot)], clock: ReadingClock) {
        self.script = Mutex(script)
        self.clock = clock
    }

    func snapshot() async -> UploadSnapshot {
        let entry = script.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
        clock.set(entry.screen)
        return entry.snapshot
    }

    func handle(_ command: UploadCommand) async {}

    func waitUntilIdle() async {
        try? await Task.sleep(for: .seconds(3600))
    }
}

@Suite("AppLoop graph time")
struct AppLoopGraphTimeTests {
    /// The graph's row once the screen has read `script`'s snapshots, a tick each, at their screen times.
    func graphLine(after script: [(screen: Duration, snapshot: UploadSnapshot)]) async -> String {
        let clock = ReadingClock()
        let controller = TimedController(script, clock: clock)
        let terminal = InMemoryTerminal(size: TerminalSize(cols: 100, rows: 30))
        terminal.send(Array(repeating: .tick, count: script.count))
        terminal.finishEvents()
        _ = await TUIApp.run(
            controller: controller, terminal: terminal,
            configuration: TUIConfiguration(source: "pics", destination: "example.com"), clock: clock)
        return String(terminal.screen.text.split(separator: "\n").first { $0.contains("peak ") } ?? "")
    }

    @Test("snapshots read late in a burst (a screen back from Ctrl-Z) land in the seconds the run took them")
    func lateSnapshots() async {
        let rate = 512.0 * 1024
        func taken(at seconds: Double) -> UploadSnapshot {
            var snapshot = Fixtures.uploading
            snapshot.isIdle = false
            snapshot.elapsed = .milliseconds(Int64(seconds * 1000))
            snapshot.progress.bytesSent = Int64(seconds * rate)
            return snapshot
        }
        // Read at once for 3 s; then the screen stops for 4 s while the run goes on at the cap; back, it reads the
        // backlog (a snapshot from 3.1 s) and then the newest, a tick apart; then on as before.
        var script: [(screen: Duration, snapshot: UploadSnapshot)] = (0...30).map {
            (.milliseconds($0 * 100), taken(at: Double($0) / 10))
        }
        script.append((.milliseconds(7000), taken(at: 3.1)))
        script.append((.milliseconds(7033), taken(at: 7.0)))
        script += (71...95).map { (.milliseconds($0 * 100), taken(at: Double($0) / 10 - 0.05)) }
        let graph = await graphLine(after: script)
        #expect(graph.contains("peak 512 KiB/s  now 512 KiB/s"), "\(graph)")
    }

    @Test("the bytes an earlier run sent (an S3 upload continued) are no burst in the graph's first second")
    func carriedBytes() async {
        let rate = 512.0 * 1024
        let script: [(screen: Duration, snapshot: UploadSnapshot)] = (0...30).map { tenth in
            var snapshot = Fixtures.uploading
            snapshot.isIdle = false
            snapshot.elapsed = .milliseconds(Int64(tenth * 100))
            snapshot.progress.bytesCarried = 64 << 20
            snapshot.progress.bytesSent = (64 << 20) + Int64(Double(tenth) / 10 * rate)
            return (.milliseconds(tenth * 100), snapshot)
        }
        let graph = await graphLine(after: script)
        #expect(graph.contains("peak 512 KiB/s"), "\(graph)")
    }
}
