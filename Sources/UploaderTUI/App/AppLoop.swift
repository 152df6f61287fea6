import UploadDomain

/// The event loop: events update the UI state, commands go to the session, frames go out at most 30 times a second.
struct AppLoop<Controller: UploadController, Screen: Terminal> {
    let controller: Controller
    let terminal: Screen
    let renderer: ScreenRenderer
    let exitWhenDone: Bool
    let notices: AsyncStream<String>?
    /// Previews of the selected file; nil when the screen draws none.
    let thumbnails: ThumbnailCache?
    let clock: any UploadClock
    private var flusher = FrameFlusher()
    private var ui: UIState
    private var snapshot: UploadSnapshot?
    private var dirty = true
    private var noticeShown: Duration?
    /// Screen time minus run time, at the freshest snapshot of a busy batch; see `readingTime(of:)`.
    private var runClockOffset: Duration?
    private var lastReadingTime: Duration?
    private var otherScreens: (@Sendable () -> Int)?

    init(
        controller: Controller, terminal: Screen, renderer: ScreenRenderer, exitWhenDone: Bool,
        notices: AsyncStream<String>? = nil, thumbnails: ThumbnailCache? = nil, clock: any UploadClock
    ) {
        self.thumbnails = thumbnails
        self.controller = controller
        self.terminal = terminal
        self.renderer = renderer
        self.exitWhenDone = exitWhenDone
        self.notices = notices
        self.clock = clock
        ui = UIState(size: terminal.initialSize)
    }

    /// Lets `d` detach (the run goes on in its own process).
    mutating func allowDetach(_ allowed: Bool) {
        ui.canDetach = allowed
    }

    /// Reads, with each snapshot, how many other screens watch the run.
    mutating func countOtherScreens(_ count: @escaping @Sendable () -> Int) {
        otherScreens = count
    }

    /// Shows a run that has ended: keys that would command it are neither offered nor taken.
    mutating func showReplay(_ replay: Bool) {
        ui.isReplay = replay
    }

    /// Starts the graph from the seconds before this screen came.
    mutating func seedRates(_ rates: RateHistory) {
        ui.rates = rates
    }

    /// What the loop reacts to: the terminal's events, and the batch going idle.
    private enum Input {
        case terminal(TerminalEvent)
        case batchIdle
        case notice(String)
    }

    /// Runs until the user quits, the batch ends with `exitWhenDone`, the events end or the task is cancelled.
    mutating func run() async -> TUIOutcome {
        var snapshot = await refreshed()
        flushIfDue(force: true)
        let (inputs, sink) = AsyncStream.makeStream(of: Input.self)
        let forward = Task { [events = terminal.events] in
            for await event in events { sink.yield(.terminal(event)) }
            sink.finish()
        }
        // Ticks come 30 times a second; leaving on the idle signal itself saves up to a tick per run.
        let idle =
            exitWhenDone
            ? Task { [controller] in
                await controller.waitUntilIdle()
                sink.yield(.batchIdle)
            } : nil
        let noticed = notices.map { notices in
            Task {
                for await notice in notices { sink.yield(.notice(notice)) }
            }
        }
        defer {
            forward.cancel()
            idle?.cancel()
            noticed?.cancel()
        }
        // The stream ends (and the loop with it) when the task is cancelled or the terminal goes away.
        for await input in inputs {
            if case .notice(let text) = input {
                ui.notice = text
                noticeShown = clock.now
                dirty = true
                flushIfDue(force: false)
                continue
            }
            guard case .terminal(let event) = input else {
                snapshot = await refreshed(from: &snapshot)
                dirty = true
                if snapshot.isIdle { return finish() }
                continue
            }
            if case .tick = event {
                snapshot = await refreshed(from: &snapshot)
                dirty = true
                // Nor does a notice stay longer than it takes to read: the footer's key hints come back.
                if ui.notice != nil, let shown = noticeShown, clock.now - shown > UIState.noticeTime { ui.notice = nil }
            }
            let update = KeyMap.update(ui, event, snapshot)
            if update.state != ui { dirty = true }
            ui = update.state
            keepScroll(in: snapshot)
            if !update.commands.isEmpty {
                for command in update.commands { await controller.handle(command) }
                snapshot = await refreshed(from: &snapshot)
                dirty = true
            }
            switch update.effect {
            case .quit: return Self.outcome(snapshot)
            case .detach: return .detached
            case .setClipboard(let text): terminal.setClipboard(text)
            case nil: break
            }
            if exitWhenDone || ui.quitWhenIdle, snapshot.isIdle { return finish() }
            if case .resize = event {
                // Also at an unchanged size: a resume reports one after the shell wrote over the screen.
                flusher.invalidate()
                dirty = true
            }
            flushIfDue(force: false)
            if Task.isCancelled { break }
        }
        return Self.outcome(await controller.snapshot())
    }

    /// Keeps the details' or the help's scroll within their rows, so a key back up moves them at once after End or a
    /// long PgDn.
    private mutating func keepScroll(in snapshot: UploadSnapshot) {
        if ui.pane == .help, ui.helpScroll > 0 {
            ui.helpScroll = min(
                ui.helpScroll,
                renderer.helpScrollLimit(snapshot, size: ui.size, canDetach: ui.canDetach, replay: ui.isReplay))
        }
        guard ui.pane == .detail, ui.detailScroll > 0 else { return }
        guard let file = ui.selectedFile(in: snapshot.files, visible: ui.visibleRows(snapshot.files)) else { return }
        ui.detailScroll = min(ui.detailScroll, renderer.detailScrollLimit(file, preview: ui.preview, size: ui.size))
    }

    /// Shows the final frame and ends the loop of an `exitWhenDone` run.
    private mutating func finish() -> TUIOutcome {
        flushIfDue(force: true)
        return .finished
    }

    /// Asks for a new snapshot after letting go of the old one's rows, so the session can update its row
    /// array in place instead of copying all of it (10,000 rows) every frame.
    private mutating func refreshed(from old: inout UploadSnapshot) async -> UploadSnapshot {
        old.files = []
        return await refreshed()
    }

    private mutating func refreshed() async -> UploadSnapshot {
        self.snapshot = nil
        let fresh = await controller.snapshot()
        self.snapshot = fresh
        if let otherScreens { ui.otherScreens = otherScreens() }
        ui.rates.record(bytesSent: fresh.progress.bytesSentThisRun, at: readingTime(of: fresh))
        return fresh
    }

    /// When the run took `snapshot`, on its own clock. A screen stopped with Ctrl-Z (or starved of CPU) reads a run
    /// process's snapshots late and then in a burst: stamped with the screen's clock, the bytes of the whole stop
    /// landed in one second of the graph (1000 KiB/s under a 512K cap that the wire kept). An idle batch's clock
    /// stands still, so its time goes on with the screen's, from the freshest busy snapshot seen.
    private mutating func readingTime(of snapshot: UploadSnapshot) -> Duration {
        let now = clock.now
        var time: Duration
        if snapshot.isIdle, let offset = runClockOffset {
            time = now - offset
        } else {
            time = snapshot.elapsed
            // The least delay seen is the freshest reading: late snapshots of a backlog must not move it.
            if !snapshot.isIdle || runClockOffset == nil {
                runClockOffset = min(runClockOffset ?? now - time, now - time)
            }
        }
        time = max(time, lastReadingTime ?? time)
        lastReadingTime = time
        return time
    }

    private static func outcome(_ snapshot: UploadSnapshot) -> TUIOutcome {
        snapshot.isIdle && snapshot.progress.counts.pending == 0 ? .finished : .quitEarly
    }

    private mutating func flushIfDue(force: Bool) {
        guard dirty, let snapshot else { return }
        let now = clock.now
        guard force || flusher.isDue(at: now) else { return }
        // Only where a preview shows (the details, or beside the list from 120 columns) is one made. Never waits: a
        // picture not made yet is a placeholder now and shows on a later frame.
        if let thumbnails, ui.pane == .detail || ui.size.cols >= 120 {
            let file = ui.selectedFile(in: snapshot.files, visible: ui.visibleRows(snapshot.files))
            ui.preview = file.map { thumbnails.preview(path: $0.path, size: $0.size) }
        } else {
            ui.preview = nil
        }
        let frame = renderer.render(snapshot, ui, size: ui.size)
        let rows = flusher.flush(frame, at: now)
        if !rows.isEmpty { terminal.write(frame, rows: rows) }
        dirty = false
    }
}
