import Foundation
import RunService
import Synchronization
import UploadDomain
import UploaderCLI
import UploaderTUI

/// A screen attached to a run process: it draws the snapshots the run sends and sends the keys' commands back.
///
/// `d` leaves the run going; a hang-up (closed terminal, dropped SSH) does the same, silently. Ctrl-C is passed
/// on to the run, which stops as it would for the signal; a second one aborts it.
struct AttachedScreen {
    let id: String
    let directory: RunDirectory
    /// Ring the terminal bell first (the run ended while nobody watched).
    var bell = false

    /// How one connection ended: with the status to exit with, or lost (the last snapshot it had).
    private enum Ending {
        case status(ExitStatus)
        case lost(UploadSnapshot?)
    }

    /// Connects and shows the run until it ends, the user quits or detaches, or the terminal goes away.
    func run() async -> ExitStatus {
        switch await show() {
        case .status(let status): status
        // After `show` has put its watchers away: a screen that attaches again installs its own.
        case .lost(let latest): await Self.afterLost(id: id, directory: directory, latest: latest)
        }
    }

    private func show() async -> Ending {
        let client: RunClient
        do {
            client = try await RunClient.connect(id: id, in: directory, role: .screen)
        } catch {
            return .status(Self.fail(error))
        }
        await client.waitForSnapshot()
        let screen = Mutex<Task<TUIOutcome, any Error>?>(nil)
        let hungUp = Atomic<Bool>(false)
        let hangUp = HangUpWatcher {
            hungUp.store(true, ordering: .releasing)
            client.detach()
            screen.withLock { $0?.cancel() }
        }
        defer { hangUp.stop() }
        // The run aborts at a second Ctrl-C and ends as usual; the screen then closes and prints the summary.
        let interrupts = InterruptWatcher(
            signals: [SIGINT, SIGTERM], onFirst: { _ in client.interrupt() }, onSecond: { client.interrupt() },
            beforeExit: {
                client.interrupt()
                CursesTerminal.restoreBeforeExit()
            })
        defer { interrupts.stop() }
        let info = client.info
        var configuration = TUIConfiguration(
            source: info.source, destination: info.destination, exitWhenDone: info.exitWhenDone,
            thumbnails: VipsThumbnails(), notices: client.notices)
        configuration.canDetach = true
        configuration.otherScreens = { client.otherScreens }
        configuration.recentRates = RateHistory(samples: client.recentRates)
        let controller = RunController(client: client)
        let task = Task(executorPreference: globalConcurrentExecutor) {
            try await TUIApp.run(session: controller, configuration: configuration)
        }
        screen.withLock { $0 = task }
        // The run ended (a stop, a signal) or vanished: the screen closes.
        let watcher = Task {
            _ = await client.waitForEnd()
            task.cancel()
        }
        defer { watcher.cancel() }
        let outcome: TUIOutcome
        do {
            if bell { FileHandle.standardOutput.write(Data("\u{7}".utf8)) }
            outcome = try await task.value
        } catch {
            client.detach()
            FileHandle.standardError.write(Data("uploader-tui: \(error)\n".utf8))
            print("detached; uploader-tui attach \(id)")
            return .status(.success)
        }
        if hungUp.load(ordering: .acquiring) { return .status(.success) }
        if outcome == .detached, client.end == nil {
            client.detach()
            print("detached; uploader-tui attach \(id)")
            return .status(.success)
        }
        if client.end == nil {
            // Stops the run only for the last screen; with others watching, the run answers `quit` and goes on.
            if outcome == .quitEarly, client.otherScreens == 0 { client.send(.stop) }
            client.quit()
        }
        let end = await client.waitForEnd()
        let snapshot = client.latest
        let status: ExitStatus
        switch end {
        case .ended(let code):
            status = ExitStatus(rawValue: code) ?? .someFailed
        case .released:
            status = snapshot.map { ExitStatus(counts: $0.progress.counts, interrupted: false) } ?? .success
        case .lost:
            return .lost(snapshot)
        }
        if let snapshot { await HeadlessReporter(json: false).summary(snapshot, exitCode: status.rawValue) }
        return .status(status)
    }

    /// The connection broke without a word. A screen that was stopped (Ctrl-Z, a laptop asleep) falls behind and is
    /// let go while its run goes on: it attaches again, or says how the run ended meanwhile. Lost only when the run's
    /// process is gone.
    static func afterLost(id: String, directory: RunDirectory, latest: UploadSnapshot?) async -> ExitStatus {
        if let problem = RunLookup.gone(id, in: directory) { return fail(problem) }
        guard let record = RunRecord.read(id, in: directory) else {
            return fail(RunServiceError(.lost, id: id, detail: "its process ended without a word"))
        }
        guard record.hasEnded else { return await AttachedScreen(id: id, directory: directory).run() }
        FileHandle.standardError.write(
            Data("uploader-tui: run \(id) ended while this screen was away: \(RunLookup.ending(record))\n".utf8))
        let last = RunRecord.readLast(id, in: directory)?.snapshot.applied(to: [], curl: { _ in LazyText { "" } })
        let status = ExitStatus(rawValue: record.exitCode ?? 1) ?? .someFailed
        if let snapshot = last ?? latest {
            await HeadlessReporter(json: false).summary(snapshot, exitCode: status.rawValue)
        }
        return status
    }

    /// Says why, in one line, and gives the documented status.
    static func fail(_ error: RunServiceError) -> ExitStatus {
        FileHandle.standardError.write(Data("uploader-tui: \(error)\n".utf8))
        return ExitStatus(error)
    }
}

extension ExitStatus {
    /// The documented status of a run that cannot be reached.
    init(_ error: RunServiceError) {
        switch error.code {
        case .noSuchRun, .ended, .stale, .lost: self = .noSuchRun
        case .otherUser, .versionMismatch, .connectFailed, .suspended: self = .refused
        case .folderUnusable: self = .usage
        }
    }
}

/// The screen's view of a run process.
struct RunController: UploadController {
    let client: RunClient

    func snapshot() async -> UploadSnapshot {
        client.latest
            ?? UploadSnapshot(
                files: [],
                progress: BatchProgress(
                    counts: PhaseCounts(), bytesSent: 0, bytesTotal: 0, bytesPerSecond: 0,
                    eta: nil), toast: .willStart, concurrency: 1, isIdle: false, elapsed: .zero)
    }

    func handle(_ command: UploadDomain.UploadCommand) async {
        client.send(command)
    }

    func waitUntilIdle() async {
        await client.waitUntilIdle()
    }
}

/// SIGHUP: the terminal is gone.
final class HangUpWatcher: @unchecked Sendable {
    // @unchecked: `source` is set in init and only cancelled afterwards, which Dispatch allows from any thread.
    private let source: any DispatchSourceSignal

    init(_ handler: @escaping @Sendable () -> Void) {
        signal(SIGHUP, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
    }

    func stop() {
        source.cancel()
    }
}
