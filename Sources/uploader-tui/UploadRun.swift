import Dispatch
import Foundation
import Synchronization
import UploadData
import UploadDomain
import UploaderCLI
import UploaderTUI

/// Runs a plan: the session on the libcurl engine, with the headless reporter or the screen in front.
struct UploadRun {
    let plan: UploadPlan

    func run() async -> ExitStatus {
        let engine = CurlEngine(options: plan.engineOptions)
        defer { engine.shutdown() }
        let planner: any RequestPlanner
        switch plan.destinationKind {
        case .planner(let fixed):
            planner = fixed
        case .presign(let endpoint, let token, let headers, let mediaType, let batch):
            planner = PresignPlanner(
                endpoint: endpoint, token: token, headers: headers, mediaType: mediaType, ticketBatch: batch,
                items: plan.items, transport: engine)
        }
        let session = UploadSession(
            items: plan.items, planner: planner, transport: engine, configuration: plan.configuration)
        let screen = Mutex<Task<TUIOutcome, any Error>?>(nil)
        let interrupts = InterruptWatcher {
            screen.withLock { $0?.cancel() }
            Task { await session.handle(.cancelAll) }
        }
        defer { interrupts.stop() }
        if plan.headless {
            await runHeadless(session)
        } else {
            await session.start()
            let configuration = TUIConfiguration(
                source: plan.source, destination: plan.destination, exitWhenDone: plan.exitWhenDone)
            let task = Task { try await TUIApp.run(session: session, configuration: configuration) }
            screen.withLock { $0 = task }
            do {
                if try await task.value == .quitEarly { await session.handle(.cancelAll) }
                await session.waitUntilIdle()
                let snapshot = await session.snapshot()
                let status = ExitStatus(counts: snapshot.progress.counts, interrupted: interrupts.interrupted)
                await HeadlessReporter(json: false).summary(snapshot, exitCode: status.rawValue)
            } catch {
                // No usable terminal: say so once, then carry on headless with the same session.
                FileHandle.standardError.write(Data("uploader-tui: \(error)\n".utf8))
                await runHeadless(session)
            }
        }
        let snapshot = await session.snapshot()
        if let path = plan.resultsPath {
            do {
                try ResultsFile.write(snapshot.files, to: path)
            } catch {
                FileHandle.standardError.write(Data("uploader-tui: \(path): cannot write results: \(error)\n".utf8))
            }
        }
        return ExitStatus(counts: snapshot.progress.counts, interrupted: interrupts.interrupted)
    }

    private func runHeadless(_ session: UploadSession) async {
        let reporter = HeadlessReporter(json: plan.json)
        for note in plan.notes { await reporter.note(note) }
        let total = plan.items.count
        let events = Task {
            for await event in session.events { await reporter.handle(event, total: total) }
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(250))
                await reporter.progress(await session.snapshot())
            }
        }
        await session.start()
        await session.waitUntilIdle()
        ticker.cancel()
        await session.finishEvents()
        await events.value
        let snapshot = await session.snapshot()
        let status = ExitStatus(counts: snapshot.progress.counts, interrupted: false)
        await reporter.summary(snapshot, exitCode: status.rawValue)
    }
}

/// SIGINT/SIGTERM: the first asks the run to stop (cancel in flight, report, exit 130); a second exits at once.
final class InterruptWatcher: @unchecked Sendable {
    // @unchecked: `count` is touched only on `queue`, where both signal handlers run.
    private let queue = DispatchQueue(label: "uploader-tui.signals")
    private var sources: [any DispatchSourceSignal] = []
    private var count = 0

    init(onFirst: @escaping @Sendable () -> Void) {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [unowned self] in
                count += 1
                if count == 1 { onFirst() } else { exit(ExitStatus.interrupted.rawValue) }
            }
            source.resume()
            sources.append(source)
        }
    }

    var interrupted: Bool { queue.sync { count > 0 } }

    func stop() {
        for source in sources { source.cancel() }
    }
}
