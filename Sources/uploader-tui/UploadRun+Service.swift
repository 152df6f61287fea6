import Foundation
import RunService
import UploadData
import UploadDomain
import UploaderCLI

/// The run process (issue 18): the session serves its screens over the run's socket instead of drawing one.
extension UploadRun {
    /// Runs the batch until it is idle and no screen is attached (or it was interrupted), serving snapshots and
    /// taking commands on the socket `id` names.
    /// - Returns: the run, to be ended once the journal and the results are written.
    /// - Throws: `UsageError` when the run folder or the socket cannot be made.
    func serve(
        _ session: UploadSession, id: String, interrupts: InterruptWatcher, total: Int, skipping done: EarlierRuns,
        whenIdle: (PhaseCounts) -> Void
    ) async throws -> ServedRun {
        // No terminal, no hang-up; ignored all the same, so a stray SIGHUP cannot end a run the person left.
        signal(SIGHUP, SIG_IGN)
        let directory = RunDirectory(environment: ProcessInfo.processInfo.environment)
        let info = RunInfo(
            id: id, pid: getpid(), source: plan.source, destination: plan.destination,
            started: Date().timeIntervalSince1970, files: total, exitWhenDone: plan.exitWhenDone)
        let server: RunServer
        do {
            try directory.prepare()
            try RunRecord(info: info).write(in: directory)
            server = try RunServer(
                directory: directory, info: info,
                host: RunHost(
                    snapshot: { await session.snapshot() }, handle: { await session.handle($0) },
                    interrupt: { interrupts.raise(SIGINT) }))
        } catch {
            throw UsageError(description: "\(error)")
        }
        // The log reads the events where the session's requests run (the curl threads), as headless runs do: an
        // event then costs no thread switch.
        let logged = plan.log.map { log in
            Task(executorPreference: session.taskExecutor) {
                for await event in session.events { log.handle(event) }
            }
        }
        await session.start(skipping: done.files, earlierResults: done.results)
        // With its bytes before `--detach` returns: a run killed in its first seconds is listed `gone` with what it
        // had to send, not "0 B of 0 B".
        try? RunRecord(info: info.updated(from: await session.snapshot())).write(in: directory)
        server.start()
        RunLauncher.signalReady()
        let idle = Task {
            await session.waitUntilIdle()
            server.sendSoon()
        }
        let notes = Task { [plan] in
            for note in plan.notes { server.notice(note) }
            if let note = await Self.locationNote(plan, skipping: done.files) { server.notice(note) }
        }
        // The record follows the batch, so a run killed with -9 is listed `gone` with what it had done.
        let recorder = Task {
            while (try? await Task.sleep(for: Self.recordInterval)) != nil {
                try? RunRecord(info: info.updated(from: await session.snapshot())).write(in: directory)
            }
        }
        // Ends once the batch is idle and no screen watches, unless a signal or a screen's Ctrl-C stopped it: then
        // the screens are told at once, as the screen of a run in one process closes once the stop is done.
        let firstScreen = ContinuousClock.now + .seconds(30)
        while true {
            await session.waitUntilIdle()
            await server.waitUntilUnwatched(firstScreen: plan.detach ? nil : firstScreen) { interrupts.interrupted }
            if interrupts.interrupted { break }
            if await session.snapshot().isIdle { break }
        }
        server.stopListening()
        notes.cancel()
        idle.cancel()
        // Done writing before the end's record is written, which must be the last.
        recorder.cancel()
        await recorder.value
        let snapshot = await session.snapshot()
        whenIdle(snapshot.progress.counts)
        await session.finishEvents()
        await logged?.value
        return ServedRun(server: server, info: info)
    }
}

extension UploadRun {
    /// How often a run process's record is brought up to date.
    static let recordInterval: Duration = .seconds(2)
}

/// A run process whose batch is over: it tells its screens, leaves its record and says so on the desktop.
struct ServedRun {
    let server: RunServer
    let info: RunInfo

    /// Records the end (with the last snapshot, for `attach`), tells the clients and, when nobody watched the end,
    /// sends a desktop notification.
    func end(_ snapshot: UploadSnapshot, status: ExitStatus) {
        var record = RunRecord(info: info.updated(from: snapshot))
        record.info.state = RunState.ended(status, counts: snapshot.progress.counts)
        record.exitCode = status.rawValue
        record.endedAt = Date().timeIntervalSince1970
        record.seen = server.endSeen
        // Before the record says the run ended, so whoever reads that finds the snapshot too.
        if !record.seen {
            let last = LastScreen(
                snapshot: WireSnapshot(snapshot),
                rates: server.finalRates(bytesSent: snapshot.progress.bytesSentThisRun),
                curlCommands: snapshot.files.map(\.curlCommand))
            try? RunRecord.writeLast(last, id: info.id, in: server.directory)
        }
        try? record.write(in: server.directory)
        server.end(snapshot, exitCode: status.rawValue)
        // The run's log holds what the run process said; nothing said, nothing kept.
        let log = server.directory.logPath(info.id)
        if let size = try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int, size == 0 { unlink(log) }
        if !record.seen {
            let counts = snapshot.progress.counts
            DesktopNotification.send(
                title: "uploader-tui: run \(info.id) \(record.info.state)",
                body: "\(counts.done) of \(counts.total - counts.skipped) files done, \(counts.failed) failed"
                    + (counts.skipped > 0 ? ", \(counts.skipped) skipped" : "") + " — uploader-tui attach " + info.id)
        }
    }
}

/// The state words `ps` shows.
enum RunState {
    /// `done`, `failed` (something failed), `stopped` (nothing failed, something was cancelled: `stop`, `C`) or
    /// `interrupted` (a signal).
    static func ended(_ status: ExitStatus, counts: PhaseCounts) -> String {
        switch status {
        case .success: "done"
        case .interrupted: "interrupted"
        default: counts.failed == 0 && counts.cancelled > 0 ? "stopped" : "failed"
        }
    }
}

/// `notify-send`, when there is one: a run that ended while nobody watched says so on the desktop.
enum DesktopNotification {
    static func send(title: String, body: String) {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        let candidates: [String] = folders.map { String($0) + "/notify-send" }
        guard let path = candidates.first(where: { access($0, X_OK) == 0 }) else { return }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        let words: [String] = [path, "--app-name=uploader-tui", title, body]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        _ = posix_spawn(&pid, path, &actions, nil, argv, environ)
    }
}
