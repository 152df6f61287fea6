import Dispatch
import Foundation
import RunService
import Synchronization
import UploadData
import UploadDomain
import UploaderCLI
import UploaderTUI

/// Runs a plan: the session on the libcurl engine, with the headless reporter or the screen in front.
struct UploadRun {
    var plan: UploadPlan

    /// Runs the batch to its end, reports it and closes the journal.
    ///
    /// `nonisolated(nonsending)`: it goes on on the caller's thread. As a plain async function it hopped to the
    /// global pool, which at that moment had to start a thread, before the first request could leave.
    ///
    /// - Throws: `UsageError` for an unusable journal or a missing libcurl, `NothingToUpload` when
    ///   `--retry-failed` finds nothing.
    nonisolated(nonsending) func run() async throws -> ExitStatus {
        // The start-up thread loads libcurl, then prepares the journal (see JournalOpening). While it is still
        // loading, this thread prepares the journal; once it has gone on to the journal, libcurl's threads start
        // while it finishes.
        var prepared = plan.journal?.hasBegun == false ? try prepareJournal() : nil
        if let problem = CurlEngine.libraryProblem()
            ?? (plan.imageOptions.changesNothing ? nil : VipsImagePreparer.libraryProblem())
        {
            if let prepared { prepared.release() } else { plan.journal?.abandon() }
            throw UsageError(description: problem)
        }
        let engine = CurlEngine(options: plan.engineOptions)
        defer { engine.shutdown() }
        if prepared == nil { prepared = try prepareJournal() }
        var items = plan.items
        if plan.retryFailed, let prepared {
            do {
                items = try plan.unfinishedItems(in: prepared.queries)
            } catch {
                prepared.release()
                throw error
            }
        }
        let journal = try prepared.map(begin)
        let tokens = TokenStore(
            initial: plan.initialToken, provider: plan.tokenSource?.provider(headers: plan.headers, transport: engine),
            secrets: plan.engineOptions.proxyCredentials)
        let transport = AuthorizingTransport(engine, tokens: tokens)
        let planner: any RequestPlanner
        switch plan.destinationKind {
        case .planner(var s3 as S3Planner):
            s3.checkpoints = journal
            planner = s3
        case .planner(let fixed):
            planner = fixed
        case .presign(let endpoint, let token, let headers, let mediaType, let batch):
            // Every run's tickets name new objects: a done record lost to a kill means a second copy.
            journal?.commitDoneAtOnce()
            planner = PresignPlanner(
                endpoint: endpoint, token: token, headers: headers, mediaType: mediaType, ticketBatch: batch,
                items: items, transport: transport, imageOptions: plan.imageOptions)
        }
        var done = EarlierRuns()
        if let journal {
            let destinations = items.map { plan.imageOptions.journalDestination(planner.journalDestination(of: $0)) }
            let prior = journal.priorOutcomes(of: items, destinations: destinations)
            done.files = Set(prior.filter { $0.value == .done }.keys)
            let ids = done.files.sorted()
            done.results = journal.earlierResults(of: ids.map { items[$0] }, destinations: ids.map { destinations[$0] })
            // A stored copy found wrong before: sent under the key its renewal makes, not the spent one.
            for (id, renewal) in journal.keyRenewals(of: items, destinations: destinations) {
                items[id].keyRenewal = renewal
            }
        }
        // Uploads kept for files this run does not send: aborted when their file is gone, else counted. Said with the
        // plan's notes, by a run that carries them.
        var noted = self
        if let s3 = planner as? S3Planner {
            noted.plan.notes += await s3.settleKeptUploads(sending: items, via: transport)
        }
        let preparer = plan.imageOptions.changesNothing ? nil : VipsImagePreparer()
        if let preparer { ProcessExit.atExit { preparer.removeTemporaryFolder() } }
        let session = UploadSession(
            items: items, planner: planner, transport: transport, configuration: plan.configuration, journal: journal,
            preparer: preparer)
        let screen = Mutex<Task<TUIOutcome, any Error>?>(nil)
        let reporter = HeadlessReporter(json: plan.json, quiet: plan.quiet)
        let headless = plan.headless
        plan.log?.started(source: plan.source, destination: plan.destination, files: items.count)
        let closeScreen: @Sendable () -> Void = { screen.withLock { $0?.cancel() } }
        // The first signal stops gracefully (issue 15): nothing new starts, the transfers in flight get the grace
        // period, so what reached the server is recorded done instead of being sent again by the next run.
        let interrupts = InterruptWatcher(
            // A hang-up (the SSH session or terminal gone) stops a headless run as SIGTERM does, with its summary,
            // results and log; under `nohup` it stays ignored.
            signals: headless && InterruptWatcher.isIgnored(SIGHUP) ? [SIGINT, SIGTERM] : [SIGINT, SIGTERM, SIGHUP],
            onFirst: { signal in
                // A hung-up terminal cannot show the screen; otherwise it shows the stop until the batch is idle.
                if signal == SIGHUP { closeScreen() }
                Task {
                    await session.handle(.stop)
                    if headless { await reporter.stopping(await session.snapshot()) }
                    await session.waitUntilIdle()
                    closeScreen()
                }
            },
            onSecond: {
                // A second signal aborts what is in flight at once; the batch then ends as usual, with each file's
                // last event and the summary, which scripts read.
                Task { await session.handle(.cancelAll) }
            },
            beforeExit: {
                // Should that not end the run, a third signal (or the fallback) exits, not before what is recorded
                // is on disk.
                journal?.flush()
                HeadlessReporter.Output.process.flush()
                CursesTerminal.restoreBeforeExit()
            })
        defer { interrupts.stop() }
        // Once the batch is idle, the journal's last commit (synced) overlaps the reporter's last lines and the
        // engine's stop, instead of lengthening every run's tail.
        let whenIdle = { (counts: PhaseCounts) -> Void in journal?.beginClose(counts: counts) }
        let autopilot =
            plan.configuration.autoConcurrency
            ? Task(executorPreference: globalConcurrentExecutor) { await ConcurrencyAutopilot.run(session) } : nil
        defer { autopilot?.cancel() }
        var served: ServedRun?
        var headlessEnd = HeadlessEnd()
        if let id = plan.service {
            served = try await noted.serve(
                session, id: id, interrupts: interrupts, total: items.count, skipping: done, whenIdle: whenIdle)
        } else if plan.headless {
            headlessEnd = await noted.runHeadless(
                session, reporter: reporter, total: items.count, skipping: done, whenIdle: whenIdle,
                interrupts: interrupts, journal: journal)
        } else {
            // The screen reads snapshots; only the log wants the events. Should the screen fail, they go on to the
            // headless reporter through the same loop: a stream has one reader.
            let fallback = FallbackReporter()
            let total = items.count
            let logged = plan.log.map { log in
                Task {
                    for await event in session.events {
                        log.handle(event)
                        await fallback.reporter.withLock { $0 }?.handle(event, total: total)
                    }
                }
            }
            await session.start(skipping: done.files, earlierResults: done.results)
            let (notices, noticeSink) = AsyncStream.makeStream(of: String.self)
            Task { [plan = noted.plan] in
                // As the run process shows them (UploadRun+Service): --insecure's among them.
                for note in plan.notes { noticeSink.yield(note) }
                if let note = await Self.locationNote(plan, skipping: done.files) { noticeSink.yield(note) }
                noticeSink.finish()
            }
            let configuration = TUIConfiguration(
                source: plan.source, destination: plan.destination, exitWhenDone: plan.exitWhenDone,
                thumbnails: VipsThumbnails(), notices: notices)
            // The screen renders off the curl threads: back from the session, which may be running there, a task
            // without a preference of its own would go on on that thread and draw frames the transfers wait for.
            let task = Task(executorPreference: globalConcurrentExecutor) {
                try await TUIApp.run(session: session, configuration: configuration)
            }
            screen.withLock { $0 = task }
            do {
                // The screen left with uploads pending (its terminal went away): stop as a signal would.
                if try await task.value == .quitEarly { await session.handle(.stop) }
                await session.waitUntilIdle()
                let snapshot = await session.snapshot()
                whenIdle(snapshot.progress.counts)
                let status = ExitStatus(counts: snapshot.progress.counts, interrupted: interrupts.interrupted)
                await HeadlessReporter(json: false).summary(snapshot, exitCode: status.rawValue)
                await session.finishEvents()
                await logged?.value
            } catch {
                // No usable terminal: say so once, then carry on headless with the same session.
                FileHandle.standardError.write(Data("uploader-tui: \(error)\n".utf8))
                fallback.reporter.withLock { $0 = reporter }
                headlessEnd = await noted.runHeadless(
                    session, reporter: reporter, total: items.count, skipping: done, whenIdle: whenIdle,
                    interrupts: interrupts, journal: journal, readsEvents: logged == nil)
                await logged?.value
            }
        }
        let snapshot = await session.snapshot()
        journal?.beginClose(counts: snapshot.progress.counts)
        engine.stop()
        await journal?.closed()
        let failure = journal?.writeFailure
        if let failure, failure.description != headlessEnd.saidFailure {
            FileHandle.standardError.write(Data("uploader-tui: warning: \(failure)\n".utf8))
        }
        var status = Self.status(snapshot, interrupted: interrupts.interrupted, journalFailure: failure)
        // A headless run wrote them before its summary, whose exit code counts them.
        if let target = plan.resultsTarget,
            !(headlessEnd.wroteResults ?? Self.writeResults(snapshot, to: target)), status == .success
        {
            status = .someFailed
        }
        // Last, so its exit code counts the journal's close and the results file.
        plan.log?.finished(snapshot, exitCode: status.rawValue)
        served?.end(snapshot, status: status)
        return status
    }

    /// The journal locked, checked and migrated; nil with `--no-resume`.
    private func prepareJournal() throws -> PreparedJournal? {
        do {
            return try plan.journal?.prepared()
        } catch {
            throw UsageError(description: error.description)
        }
    }

    /// Records the run's start.
    private func begin(_ journal: PreparedJournal) throws -> SQLiteJournal {
        do {
            return try journal.begin(destination: plan.destination, arguments: plan.source + " -> " + plan.destination)
        } catch {
            throw UsageError(description: error.description)
        }
    }

    /// What a headless run said before its summary.
    struct HeadlessEnd {
        /// The journal's failure, said with the summary.
        var saidFailure: String?
        /// Whether `--results` were written; nil when not tried.
        var wroteResults: Bool?
    }

    /// Runs the batch of `total` files with the headless reporter; `whenIdle` gets the final counts as soon as
    /// nothing is left.
    /// `readsEvents` false: another loop already reads the session's events and hands them to `reporter`.
    /// - Returns: The journal's failure said with the summary, if any, and whether the results file was written.
    @discardableResult
    private func runHeadless(
        _ session: UploadSession, reporter: HeadlessReporter, total: Int, skipping done: EarlierRuns,
        whenIdle: (PhaseCounts) -> Void, interrupts: InterruptWatcher, journal: SQLiteJournal?,
        readsEvents: Bool = true
    ) async -> HeadlessEnd {
        for note in plan.notes { await reporter.note(note) }
        await reporter.starting(await session.snapshot())
        await reporter.leftOut(plan.leftOut)
        let locations = Task { [plan] in
            if let note = await Self.locationNote(plan, skipping: done.files) { await reporter.note(note) }
        }
        // The reporter runs where the session's requests do (the curl threads), so an event costs no thread switch.
        let executor = session.taskExecutor
        let log = plan.log
        let events = Task(executorPreference: executor) {
            guard readsEvents else { return }
            var events = session.events.makeAsyncIterator()
            while case let batch = await events.nextBatch(), !batch.isEmpty {
                // A slice at a time, and a yield between them: the first request's job, queued behind this one,
                // gets its turn, and a backlog of 10,000 `queued` events does not hold it back.
                for start in stride(from: 0, to: batch.count, by: 64) {
                    let slice = batch[start..<min(start + 64, batch.count)]
                    if let log { for event in slice { log.handle(event) } }
                    await reporter.handle(slice, total: total)
                    if slice.endIndex < batch.count { await Task.yield() }
                }
            }
        }
        let ticker = Task(executorPreference: executor) {
            var journalFailed = false
            while !Task.isCancelled {
                try? await Task.sleep(for: HeadlessReporter.flushInterval)
                await reporter.progress(await session.snapshot())
                if !journalFailed, let failure = journal?.writeFailure {
                    journalFailed = true
                    await reporter.journalFailed(failure.description)
                }
            }
        }
        await session.start(skipping: done.files, earlierResults: done.results)
        await session.waitUntilIdle()
        whenIdle(await session.snapshot().progress.counts)
        ticker.cancel()
        await locations.value
        await session.finishEvents()
        await events.value
        let snapshot = await session.snapshot()
        // What the journal has committed so far: a failure then is said with the summary and in its exit code.
        journal?.flush()
        let failure = journal?.writeFailure
        var status = Self.status(snapshot, interrupted: interrupts.interrupted, journalFailure: failure)
        // A results file is written before the summary, whose exit code counts it. Into a stream (`/dev/stdout`)
        // they go last, after the summary, as nothing written after them may land where they are.
        var written: Bool?
        if case .file = plan.resultsTarget {
            written = plan.resultsTarget.map { Self.writeResults(snapshot, to: $0) }
            if written == false, status == .success { status = .someFailed }
        }
        await reporter.summary(snapshot, exitCode: status.rawValue, journalError: failure?.description)
        return HeadlessEnd(saidFailure: failure?.description, wroteResults: written)
    }

    /// Writes `--results`; false, said on standard error, when they cannot be written. A script reads them to learn
    /// what happened: without them the run has not said it, and exits 1.
    private static func writeResults(_ snapshot: UploadSnapshot, to target: ResultsFile.Target) -> Bool {
        do {
            try ResultsFile.write(snapshot.files, to: target)
            return true
        } catch {
            let name = Sanitizer.displayName(target.path)
            FileHandle.standardError.write(Data("uploader-tui: --results \(name): cannot write: \(error)\n".utf8))
            return false
        }
    }

    /// The run's exit status: a journal that could not record it makes it 1 (its reruns would send again what was
    /// done).
    static func status(
        _ snapshot: UploadSnapshot, interrupted: Bool, journalFailure: JournalError?
    ) -> ExitStatus {
        let status = ExitStatus(counts: snapshot.progress.counts, interrupted: interrupted)
        return status == .success && journalFailure != nil ? .someFailed : status
    }
}

extension UploadRun {
    /// "12 of 24 files carry a GPS location; --strip-metadata removes it", or nil: said once, unless the metadata is
    /// stripped. Read from the images' headers while the uploads run; libvips, with its modules tens of milliseconds
    /// of CPU to load, only when there are images of a type that can hold EXIF.
    /// The files `done` (uploaded by an earlier run, skipped now) are not counted: nothing of them goes out.
    static func locationNote(_ plan: UploadPlan, skipping done: Set<Int>) async -> String? {
        guard !plan.imageOptions.stripMetadata else { return nil }
        let images = plan.items.filter {
            $0.skipReason == nil && !done.contains($0.id) && $0.sniffedType.map(MediaType.mayCarryLocation) == true
        }
        guard !images.isEmpty, VipsImagePreparer.libraryProblem() == nil else { return nil }
        let probe = VipsImagePreparer()
        var located = 0
        for item in images where await probe.carriesLocation(item) { located += 1 }
        guard located > 0 else { return nil }
        let files = images.count == 1 ? "file" : "files"
        let carry = located == 1 ? "carries" : "carry"
        return "\(located) of \(images.count) \(files) \(carry) a GPS location; --strip-metadata removes it"
    }
}

/// SIGINT/SIGTERM and SIGHUP: the first asks the run to stop (finish what is in flight,
/// report, exit 130); a second aborts what is in flight (`onSecond`, which has `fallback` to end the run) or, without
/// `onSecond`, exits at once, as does a third.
final class InterruptWatcher: @unchecked Sendable {
    // @unchecked: `count` is touched only on `queue`, where every signal handler runs.
    private let queue = DispatchQueue(label: "uploader-tui.signals")
    private var sources: [any DispatchSourceSignal] = []
    private var count = 0
    private let onFirst: @Sendable (Int32) -> Void
    private let onSecond: (@Sendable () -> Void)?
    private let beforeExit: @Sendable () -> Void
    /// How long an abort may take to end the run before the process exits regardless.
    static let fallback: DispatchTimeInterval = .seconds(3)

    init(
        signals: [Int32], onFirst: @escaping @Sendable (Int32) -> Void, onSecond: (@Sendable () -> Void)? = nil,
        beforeExit: @escaping @Sendable () -> Void
    ) {
        self.onFirst = onFirst
        self.onSecond = onSecond
        self.beforeExit = beforeExit
        for signalNumber in signals {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { [unowned self] in received(signalNumber) }
            source.resume()
            sources.append(source)
        }
    }

    /// Acts as if `signalNumber` had arrived: a screen's Ctrl-C, passed on over the run's socket.
    func raise(_ signalNumber: Int32) {
        queue.async { [self] in received(signalNumber) }
    }

    private func received(_ signalNumber: Int32) {
        count += 1
        if count == 1 {
            onFirst(signalNumber)
        } else if count == 2, let onSecond {
            onSecond()
            queue.asyncAfter(deadline: .now() + Self.fallback) { [self] in exitNow() }
        } else {
            exitNow()
        }
    }

    private func exitNow() {
        beforeExit()
        ProcessExit.now(ExitStatus.interrupted.rawValue)
    }

    var interrupted: Bool { queue.sync { count > 0 } }

    /// Whether the process started with `signalNumber` ignored (`nohup` ignores SIGHUP for its command).
    static func isIgnored(_ signalNumber: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(signalNumber, nil, &current) == 0 else { return false }
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
            == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    func stop() {
        for source in sources { source.cancel() }
    }
}

/// The headless reporter the log's event loop also feeds once the screen has failed.
private final class FallbackReporter: Sendable {
    let reporter = Mutex<HeadlessReporter?>(nil)
}

/// What earlier runs to the same destinations left: the files they uploaded, skipped now, and what the server
/// answered for them then.
struct EarlierRuns {
    var files: Set<Int> = []
    var results: [Int: UploadResult] = [:]
}
