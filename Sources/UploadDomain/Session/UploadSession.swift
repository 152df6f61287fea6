/// Schedules a batch: starts requests within the concurrency cap, retries, takes commands and reports.
///
/// Phase changes go out on `events` in the order they happen; progress is sampled with `snapshot()`.
public actor UploadSession {
    /// How the session runs.
    public struct Configuration: Sendable {
        public var concurrency: Int
        /// `--concurrency auto`: `ConcurrencyAutopilot` sets the width until the user sets one.
        public var autoConcurrency: Bool
        public var retryPolicy: RetryPolicy
        /// Stop everything at the first final failure (seed 000's behaviour).
        public var failFast: Bool
        /// Immediate retries per file after a 401, each with a refreshed token (0 when nothing refreshes it).
        public var tokenRefreshes: Int
        /// Where the requests' token comes from, for a 401's hint (`UploadError.tokenOrigin`); nil without one.
        public var tokenOrigin: String?
        /// How long the transfers in flight get to finish after `stop` before they are aborted.
        public var grace: Duration
        /// What preprocessing does to images; nothing by default.
        public var imageOptions: ImageOptions
        /// Images prepared at once.
        public var preparingWorkers: Int
        /// The cap on the upload rate of all transfers together (`--bwlimit`), bytes per second; nil for none.
        public var bandwidthLimit: Int64?
        /// Read back what the server stored for each file before calling it done (`--verify`).
        public var verify: Bool
        /// The largest file the destination takes (`--max-size`) and the option as given: a prepared image, whose
        /// size the rules could not check before, larger than this fails instead of being sent.
        public var maxPreparedSize: (bytes: Int64, option: String)?
        /// How long a file waits for a server still processing an earlier request under its `Idempotency-Key`
        /// (409 with `Retry-After`), as long as its processing may take (`--response-timeout`); nil: as long as the
        /// server says it is at it. Those waits spend none of the file's retries.
        public var inProgressPatience: Duration?

        /// Why a prepared image of `size` bytes is not sent, or nil when `--max-size` allows it.
        public func preparedSizeError(_ size: Int64, file: String) -> UploadError? {
            guard let limit = maxPreparedSize, size > limit.bytes else { return nil }
            return UploadError(
                .imageTooLarge, file: file,
                cause: "prepared, it is \(size) bytes, more than \(limit.option) allows; nothing sent")
        }

        /// Creates a configuration.
        public init(
            concurrency: Int = 4, retryPolicy: RetryPolicy = RetryPolicy(), failFast: Bool = false,
            tokenRefreshes: Int = 0, grace: Duration = .seconds(10), imageOptions: ImageOptions = ImageOptions(),
            preparingWorkers: Int = 2, bandwidthLimit: Int64? = nil, verify: Bool = false,
            autoConcurrency: Bool = false, maxPreparedSize: (bytes: Int64, option: String)? = nil,
            tokenOrigin: String? = nil, inProgressPatience: Duration? = .seconds(300)
        ) {
            self.inProgressPatience = inProgressPatience
            self.tokenOrigin = tokenOrigin
            self.autoConcurrency = autoConcurrency
            self.maxPreparedSize = maxPreparedSize
            self.verify = verify
            self.concurrency = concurrency
            self.retryPolicy = retryPolicy
            self.failFast = failFast
            self.tokenRefreshes = tokenRefreshes
            self.grace = grace
            self.imageOptions = imageOptions
            self.preparingWorkers = max(1, preparingWorkers)
            self.bandwidthLimit = bandwidthLimit.map { max(1, $0) }
        }
    }

    private struct FileState {
        /// The file as scanned; its `keyRenewal` grows when `--verify` finds its stored copy wrong.
        var item: UploadItem
        let destination: String
        /// The destination with the image options that change the bytes: how the journal keys the file.
        let journalDestination: String
        var curlCommand: LazyText
        var machine = UploadJob.StateMachine()
        var requestID: Int?
        var attemptStarted: Duration = .zero
        var recentRate = RecentRate()
        /// Bytes the last attempt had sent when last sampled: what a failed or cancelled file shows, so neither its
        /// row nor the batch's count goes back when it ends.
        var lastSent: Int64 = 0
        /// Bytes of the file an earlier run sent (an S3 upload continued from its finished parts).
        var carried: Int64 = 0
        // Out of line: few files have them at once, and inline every file's state would hold their room.
        var result: UploadResult? {
            get { resultBox?.value }
            set { resultBox = newValue.map(Boxed.init) }
        }
        var error: UploadError? {
            get { errorBox?.value }
            set { errorBox = newValue.map(Boxed.init) }
        }
        var resultBox: Boxed<UploadResult>?
        var errorBox: Boxed<UploadError>?
        var refreshes = 0
        /// Why the batch cancelled it: the failure it stopped at. Said when it ends cancelled, whatever answer its
        /// own request got meanwhile.
        var stoppedBy: String?
        /// Tries that found the server gone: the outage's, not counted against the file's retries.
        var outageFailures = 0
        /// Tries the server answered "still processing an earlier request under this key" (409 with `Retry-After`),
        /// not counted against the file's retries either, and when the first of the current run of them came.
        var inProgressWaits = 0
        var inProgressSince: Duration?
        /// The prepared file while it may still be sent; removed once the file ends.
        var prepared: PreparedImage? {
            get { preparedBox?.value }
            set { preparedBox = newValue.map(Boxed.init) }
        }
        var preparedBox: Boxed<PreparedImage>?
        /// Preparing found nothing to do (not an image): sent as it is.
        var sentAsIs = false
        /// The encoding of its first preparation, kept for a retry's, so a repeat sends the same bytes.
        var encoding: ImageEncoding?
        /// The options that changed the copy's bytes (`ImageOptions.identityTag`).
        var preparationTag = ""
        var preparation: Preparation? {
            get { preparationBox?.value }
            set { preparationBox = newValue.map(Boxed.init) }
        }
        var preparationBox: Boxed<Preparation>?

        /// Bytes the file sends: the prepared size once it was prepared.
        var sendSize: Int64 { preparation?.size ?? item.size }

        /// What goes out: the prepared file under its new name, or the file as scanned.
        var sendItem: UploadItem {
            guard let prepared else { return item }
            let origin = PreparedOrigin(
                path: item.path, size: item.size, modified: item.modified,
                preparation: preparationTag + " " + (encoding == .fastest ? "fastest" : "smallest"))
            return UploadItem(
                id: item.id, path: prepared.path, relativePath: prepared.remoteName, size: prepared.size,
                modified: prepared.modified, contentType: prepared.contentType, sniffedType: prepared.contentType,
                preparedFrom: origin, keyRenewal: item.keyRenewal)
        }

        /// Whether an error's `file` is this file, by its own name or the name it is sent under.
        func names(_ file: String?) -> Bool {
            file != nil && (file == item.relativePath || file == sendItem.relativePath)
        }
    }

    private struct RunningRequest {
        let task: Task<Void, Never>
        let fileIDs: [Int]
        let probe: TransferProbe
        /// Each file's first byte within the files' payload, for per-file progress inside a batch.
        let offsets: [Int64]
        let payload: Int64
        var paused = false
        /// When its last byte went out: the server's processing is timed from there.
        var allSentAt: Duration?
        /// Started while the server could not be reached: a probe.
        var probed = false

        /// The bytes of the files' payload sent so far: the probe's count of the request, framing and all, scaled.
        var payloadSent: Int64 {
            probe.total > 0 ? Int64(Double(probe.sent) / Double(probe.total) * Double(payload)) : 0
        }
    }

    public nonisolated let events = UploadEvents()
    /// The executor the session's request tasks prefer (the transport's), for front ends that want to run beside them.
    public nonisolated var taskExecutor: (any TaskExecutor)? { transport.taskExecutor }
    private let transport: any UploadTransport
    private let planner: any RequestPlanner
    private let clock: any UploadClock
    private let journal: (any UploadJournal)?
    private let random: @Sendable () -> Double
    private var configuration: Configuration
    private var files: [FileState]
    private var queue: [Int] = []
    private var queueHead = 0
    private var running: [Int: RunningRequest] = [:]
    private var retryTimers: [Int: Task<Void, Never>] = [:]
    private var nextRequestID = 0
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []
    private var tracker = ProgressTracker()
    private let slots: TransferSlots
    /// The last rows handed out, and the files changed since: a snapshot rebuilds only those and the files in flight.
    private var rows = SnapshotRows()
    private var changed: Set<Int> = []
    private var started = false
    /// When the last file event happened: once the batch is idle, its end, which the elapsed time stops at.
    private var lastEventAt: Duration = .zero
    /// Cancelling everything: a failure now is final.
    private var stopping = false
    /// Since `stop`: nothing new starts or retries; the transfers in flight finish until `graceEnds`.
    private var draining = false
    private var graceEnds: Duration?
    private var graceTimer: Task<Void, Never>?
    /// A server asked to wait (`Retry-After` on a 429 or 503): no request starts before this time (`clock.now`),
    /// so the files behind do not all meet the same refusal, and the retries do not all come back at once.
    private var holdUntil: Duration?
    private var holdTimer: Task<Void, Never>?
    /// The server could not be reached: one request at a time until one gets an answer.
    private var outage: Outage?
    /// The failure the batch stopped at, until a retry takes it up again.
    private var batchStop: BatchStop?
    /// The files of the request whose answer is being handled.
    private var finishing: Set<Int> = []
    /// How long the server takes to answer once a request's last byte is out (its processing), smoothed.
    private var answerWait: Duration?
    /// Bytes earlier runs sent, counted as sent (`TransferProbe.carry`): the rate leaves them out.
    private var bytesCarried: Int64 = 0
    private let preparer: (any ImagePreparing)?
    /// Files waiting for a preparing worker, in order, and the files being prepared.
    private var prepareQueue: [Int] = []
    private var prepareHead = 0
    private var preparing: Set<Int> = []

    /// Creates a session for `items` (already in input order).
    public init(
        items: [UploadItem], planner: any RequestPlanner, transport: any UploadTransport,
        configuration: Configuration = Configuration(), journal: (any UploadJournal)? = nil,
        preparer: (any ImagePreparing)? = nil, clock: any UploadClock = SystemClock(),
        random: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.preparer = configuration.imageOptions.changesNothing ? nil : preparer
        self.planner = planner
        self.journal = journal
        self.transport = transport
        self.configuration = configuration
        self.clock = clock
        self.random = random
        let options = configuration.imageOptions
        self.files = items.indices.map { index in
            let item = items[index]
            // The command's closure holds the list, not a copy of the item: one per file of the batch.
            return FileState(
                item: item, destination: planner.destination(of: item),
                journalDestination: options.journalDestination(planner.journalDestination(of: item)),
                curlCommand: LazyText { planner.curlCommand(for: items[index]) })
        }
        slots = TransferSlots(capacity: configuration.concurrency)
        // A slot given back by a multipart part may let the next file start.
        slots.onRelease { [weak self, executor = taskExecutor] in
            Task(executorPreference: executor) { await self?.pump() }
        }
    }

    /// Queues every file (skipping those in `alreadyDone`) and starts the first requests.
    /// - Parameters:
    ///   - alreadyDone: Files an earlier run uploaded: skipped.
    ///   - earlierResults: What the server answered them then (media ID, location), reported with the skip.
    public func start(skipping alreadyDone: Set<Int> = [], earlierResults: [Int: UploadResult] = [:]) {
        guard !started else { return }
        started = true
        if let limit = configuration.bandwidthLimit { transport.setBandwidthLimit(limit) }
        for id in files.indices {
            emit(.queued, id)
            if alreadyDone.contains(id) || files[id].item.skipReason != nil {
                _ = files[id].machine.skip()
                files[id].result = earlierResults[id]
                emit(.skipped, id)
            } else if let failure = files[id].item.scanFailure {
                _ = files[id].machine.start()
                files[id].error = failure
                _ = files[id].machine.failed(retryAfter: nil)
                emit(.failed, id)
            } else if preparer != nil {
                prepareQueue.append(id)
            } else {
                queue.append(id)
                // The first requests leave while the rest are still being queued, each once its group is whole;
                // each file's own events keep their order (queued, then started).
                if (id + 1) % max(1, planner.batchSize) == 0, slots.available > 0 { pump() }
            }
        }
        // Stopped before it started (a Ctrl-C during the scan): nothing is sent.
        if draining { cancelQueued() }
        pumpPreparing()
        pump()
        resumeWaitersIfIdle()
    }

    /// Returns once nothing is queued, running or waiting to retry.
    public func waitUntilIdle() async {
        if isIdle { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// Ends the event stream (after the last reporter line is wanted).
    public func finishEvents() {
        events.finish()
    }

    /// Carries out a user's command.
    public func handle(_ command: UploadCommand) {
        switch command {
        case .cancel(let id): cancel(id)
        case .cancelAll:
            stopping = true
            for id in files.indices { cancel(id) }
            cancelQueued()
            stopping = false
            resumeWaitersIfIdle()
        case .stop: stop()
        case .retry, .retryUnfinished:
            // While a stop drains nothing starts; once it is over, a retry takes the batch up again.
            guard !draining || isIdle else { return }
            draining = false
            graceEnds = nil
            batchStop = nil
            let wasIdle = isIdle
            if case .retry(let id) = command {
                // Asked for by name: it goes next, not behind every file still queued.
                retry(id, first: true)
            } else {
                for id in files.indices where [.failed, .cancelled].contains(files[id].machine.phase) { retry(id) }
            }
            // The rate and the ETA start afresh: measured across the idle span, they would count the time when
            // nothing was asked of the server.
            if wasIdle, !isIdle { tracker = ProgressTracker() }
        case .togglePause(let id): togglePause(id)
        case .setConcurrency(let n), .tuneConcurrency(let n):
            if case .setConcurrency = command {
                configuration.autoConcurrency = false
            } else if !configuration.autoConcurrency {
                return
            }
            configuration.concurrency = max(1, min(64, n))
            slots.setCapacity(configuration.concurrency)
            pump()
        case .setBandwidthLimit(let limit):
            configuration.bandwidthLimit = limit.map { max(1, $0) }
            transport.setBandwidthLimit(configuration.bandwidthLimit)
        }
    }

    /// Starts nothing more: queued files and files waiting to retry end cancelled; those in flight get
    /// `configuration.grace` to finish, then are aborted. Asked again, it does nothing more (`cancelAll` aborts).
    private func stop() {
        guard !draining else { return }
        draining = true
        cancelQueued()
        guard !running.isEmpty else { return resumeWaitersIfIdle() }
        graceEnds = clock.now + configuration.grace
        let clock = self.clock
        let grace = configuration.grace
        graceTimer = Task(executorPreference: taskExecutor) { [weak self] in
            guard (try? await clock.sleep(for: grace)) != nil else { return }
            await self?.graceRanOut()
        }
    }

    /// Aborts the transfers still in flight, each saying why: a file whose every byte went may be on the server.
    private func graceRanOut() {
        for request in running.values {
            let cause =
                "aborted when --grace ran out"
                + (request.probe.allSent ? "; every byte was sent, so the server may hold it: a rerun finds out" : "")
            for id in request.fileIDs where files[id].stoppedBy == nil { files[id].stoppedBy = cause }
        }
        handle(.cancelAll)
    }

    /// Ends every file that waits for its turn or for a retry as cancelled.
    private func cancelQueued() {
        for id in files.indices
        where [.queued, .preparing].contains(files[id].machine.phase) && !files[id].machine.isInFlight {
            cancel(id)
        }
        queue.removeAll()
        queueHead = 0
        prepareQueue.removeAll()
        prepareHead = 0
    }

    // MARK: - Scheduling

    private var isIdle: Bool {
        queueHead == queue.count && running.isEmpty && retryTimers.isEmpty && prepareHead == prepareQueue.count
            && preparing.isEmpty
    }

    /// Starts preparing the next images while workers are free, keeping no more prepared files waiting than the
    /// transfer slots and workers can use: the network never waits for an encoder, the temp folder stays small.
    private func pumpPreparing() {
        guard let preparer, !stopping, !draining else { return }
        let workers = configuration.preparingWorkers
        while preparing.count < workers, prepareHead < prepareQueue.count,
            preparing.count + (queue.count - queueHead) < configuration.concurrency + workers
        {
            let id = prepareQueue[prepareHead]
            prepareHead += 1
            guard files[id].machine.phase == .queued, !files[id].machine.isInFlight else { continue }
            preparing.insert(id)
            apply(files[id].machine.beginPreparing(), to: id)
            let item = files[id].item
            let options = configuration.imageOptions
            // Files already waiting for a transfer slot: the link is behind, so CPU spent on fewer bytes is free.
            // Otherwise this file is wanted as soon as it is ready. A request that carries an Idempotency-Key
            // must send the same bytes on a rerun, whatever the link does then.
            let encoding: ImageEncoding =
                files[id].encoding
                ?? (planner.sendsIdempotencyKeys || queueHead < queue.count ? .smallest : .fastest)
            files[id].encoding = encoding
            files[id].preparationTag = options.identityTag
            Task { [weak self] in
                let outcome: Result<PreparedImage?, UploadError>
                do throws(UploadError) {
                    outcome = .success(try await preparer.prepare(item, options: options, encoding: encoding))
                } catch {
                    outcome = .failure(error)
                }
                await self?.preparationFinished(id, outcome)
            }
        }
        if prepareHead > 4096, prepareHead * 2 > prepareQueue.count {
            prepareQueue.removeFirst(prepareHead)
            prepareHead = 0
        }
    }

    private func preparationFinished(_ id: Int, _ outcome: Result<PreparedImage?, UploadError>) {
        preparing.remove(id)
        changed.insert(id)
        guard files[id].machine.phase == .preparing else {
            // Cancelled meanwhile: the prepared file is not needed.
            if case .success(let prepared?) = outcome { preparer?.discard(prepared) }
            pumpPreparing()
            resumeWaitersIfIdle()
            return
        }
        switch outcome {
        case .success(let prepared?)
        where configuration.preparedSizeError(prepared.size, file: files[id].item.relativePath) != nil:
            preparer?.discard(prepared)
            files[id].error = configuration.preparedSizeError(prepared.size, file: files[id].item.relativePath)
            apply(files[id].machine.preparationFailed(), to: id)
        case .success(let prepared?):
            files[id].prepared = prepared
            files[id].preparation = Preparation(
                originalSize: files[id].item.size, size: prepared.size, width: prepared.width, height: prepared.height,
                remoteName: prepared.remoteName)
            // The request sends the prepared copy, under its name and type; the copy goes once the file ends.
            let sent = files[id].sendItem
            files[id].curlCommand = LazyText { [planner] in
                planner.curlCommand(for: sent) + "  # the prepared copy, removed once the file ended"
            }
            emit(.prepared, id)
            apply(files[id].machine.prepared(), to: id)
        case .success(nil):
            files[id].sentAsIs = true
            apply(files[id].machine.prepared(), to: id)
        case .failure(let error):
            files[id].error = error.forFile(files[id].item.relativePath)
            apply(files[id].machine.preparationFailed(), to: id)
        }
        pumpPreparing()
        pump()
        resumeWaitersIfIdle()
    }

    /// Removes the prepared file of a file that has ended; a retry prepares it again.
    private func discardPrepared(_ id: Int) {
        guard let prepared = files[id].prepared else { return }
        files[id].prepared = nil
        preparer?.discard(prepared)
    }

    private func pump() {
        if let holdUntil {
            guard clock.now >= holdUntil else { return }
            self.holdUntil = nil
        }
        // Take the slot first: parts of multipart uploads take slots from other threads.
        while !stopping, !draining, queueHead < queue.count, !(outage != nil && !running.isEmpty), slots.tryAcquire() {
            var batch: [Int] = []
            let size = max(1, planner.batchSize)
            while batch.count < size, queueHead < queue.count {
                let id = queue[queueHead]
                // Fixed groups of the scan's order: a rerun after a kill sends the files a killed request held in one
                // request again, under the same Idempotency-Key, whatever else was done meanwhile.
                if let first = batch.first, id / size != first / size { break }
                queueHead += 1
                if files[id].machine.phase == .queued, !files[id].machine.isInFlight { batch.append(id) }
            }
            if queueHead > 4096, queueHead * 2 > queue.count {
                queue.removeFirst(queueHead)
                queueHead = 0
            }
            guard !batch.isEmpty else {
                slots.releaseQuietly()
                break
            }
            startRequest(batch)
        }
    }

    private func startRequest(_ ids: [Int]) {
        let items = ids.map { files[$0].sendItem }
        let requestID = nextRequestID
        nextRequestID += 1
        for id in ids {
            changed.insert(id)
            _ = files[id].machine.start()
            files[id].requestID = requestID
            files[id].attemptStarted = clock.now
            files[id].recentRate = RecentRate()
            files[id].lastSent = 0
            files[id].error = nil
            files[id].stoppedBy = nil
            emit(.started, id)
        }
        let executor = taskExecutor
        let probed = outage != nil
        // Only a probe's first byte is news (the server is back): no hop for every other request.
        var onSending: @Sendable () -> Void = {}
        if probed {
            onSending = { [weak self] in
                Task(executorPreference: executor) { await self?.sending(requestID: requestID) }
            }
        }
        let probe = TransferProbe(
            onAllSent: { [weak self] in
                Task(executorPreference: executor) { await self?.allSent(requestID: requestID) }
            },
            onSending: onSending)
        var offsets: [Int64] = []
        var payload: Int64 = 0
        for item in items {
            offsets.append(payload)
            payload += item.size
        }
        let transport = self.transport
        let planner = self.planner
        let slots = self.slots
        let verify = configuration.verify
        // On the transport's thread when it has one: the transfer's end resumes this task where it happened.
        let task = Task(executorPreference: executor) { [weak self] in
            var outcome: Result<TransferResponse, UploadError>
            var checks: [Verification] = []
            do {
                let response = try await planner.upload(items, via: transport, probe: probe, slots: slots)
                outcome = .success(response)
                // The read-back holds the request's slot: it is part of getting the file done.
                if verify, response.isSuccess {
                    await self?.verifyBegan(requestID: requestID)
                    checks = await planner.verify(items, response: response, via: transport)
                    if Task.isCancelled { outcome = .failure(UploadError(.cancelled)) }
                }
            } catch let error as UploadError {
                outcome = .failure(error)
            } catch {
                outcome = .failure(UploadError(.cancelled))
            }
            await self?.requestFinished(requestID: requestID, outcome: outcome, checks: checks)
        }
        running[requestID] = RunningRequest(
            task: task, fileIDs: ids, probe: probe, offsets: offsets, payload: payload, probed: probed)
    }

    private func allSent(requestID: Int) {
        guard let request = running[requestID] else { return }
        running[requestID]?.allSentAt = clock.now
        for id in request.fileIDs { apply(files[id].machine.allSent(), to: id) }
    }

    private func verifyBegan(requestID: Int) {
        guard let request = running[requestID] else { return }
        for id in request.fileIDs { apply(files[id].machine.verifyBegan(), to: id) }
    }

    /// - Parameter checks: with `--verify`, one read-back outcome per file of a successful response.
    private func requestFinished(
        requestID: Int, outcome: Result<TransferResponse, UploadError>, checks: [Verification] = []
    ) {
        guard let request = running.removeValue(forKey: requestID) else { return }
        slots.releaseQuietly()  // the pump below uses it
        let ids = request.fileIDs
        finishing = Set(ids)
        defer { finishing = [] }
        for id in ids {
            changed.insert(id)
            files[id].requestID = nil
            if request.probe.allSent { apply(files[id].machine.allSent(), to: id) }
        }
        // An answer of any kind: the server is there again.
        if case .success = outcome { outage = nil }
        if case .success(let response) = outcome, response.isSuccess, let sentAt = request.allSentAt {
            let wait = clock.now - sentAt
            answerWait = answerWait.map { $0 * 0.7 + wait * 0.3 } ?? wait
        }
        switch outcome {
        case .success(let response) where response.isSuccess:
            let results = planner.results(for: ids.map { files[$0].sendItem }, response: response)
            var unverifiable = false
            for (index, id) in ids.enumerated() {
                files[id].result = index < results.count ? results[index] : nil
                files[id].result?.partsResent = request.probe.partsResent
                if index < response.contentHashes.count {
                    files[id].result?.contentHash = response.contentHashes[index]
                }
                guard configuration.verify else {
                    apply(files[id].machine.succeeded(), to: id)
                    continue
                }
                let file = files[id].item.relativePath
                switch index < checks.count ? checks[index] : .unavailable("no read-back", file: file) {
                case .verified(let digest):
                    files[id].result?.verified = digest
                    apply(files[id].machine.succeeded(), to: id)
                case .failed(let error):
                    unverifiable = unverifiable || error.code == .verifyUnavailable
                    if error.code == .verifyMismatch { renewKey(id) }
                    finishFailed(id, error: error.forFile(file))
                }
            }
            // The rest would meet the same server: stop at the first file it cannot report on.
            if unverifiable, !stopping { stopBatch(after: ids.first { files[$0].machine.phase == .failed } ?? ids[0]) }
        case .success(let response):
            for id in ids {
                let error =
                    response.error(file: files[id].item.relativePath)
                    ?? UploadError(.invalidResponse, file: files[id].item.relativePath)
                finishFailed(id, error: error)
            }
        case .failure(let error):
            let cancelled = error.code == .cancelled
            // One file of a batch that cannot be read fails alone: its batch-mates go back in line.
            let culprit = ids.count > 1 && error.concernsFileAlone ? ids.first { files[$0].names(error.file) } : nil
            for id in ids {
                if cancelled {
                    files[id].error = error.forFile(files[id].item.relativePath)
                    if ids.count == 1 { files[id].lastSent = min(files[id].sendSize, request.payloadSent) }
                    if request.probe.keptForNextRun {
                        files[id].error?.cause = "its multipart upload is kept for the next run to continue"
                    }
                    apply(files[id].machine.interrupted(), to: id)
                } else if culprit != nil, id != culprit {
                    files[id].error = nil
                    apply(files[id].machine.unstarted(), to: id)
                } else {
                    finishFailed(
                        id, error: error.forFile(files[id].item.relativePath), probed: request.probed,
                        sentBytes: request.probe.sent > 0)
                }
            }
        }
        pump()
        pumpPreparing()
        resumeWaitersIfIdle()
    }

    /// - Parameters:
    ///   - probed: The request started while the server could not be reached.
    ///   - sentBytes: Some of the request's body went out: the server was there, whatever broke after.
    private func finishFailed(_ id: Int, error: UploadError, probed: Bool = false, sentBytes: Bool = false) {
        changed.insert(id)
        var error = error
        if error.code == .unauthorized { error.tokenOrigin = configuration.tokenOrigin }
        files[id].error = error
        // A batch-mate of the failure the batch stopped at, answered after it, ends too.
        let final = stopping || draining || batchStop != nil
        if !final, planner.renewsRequest(after: error, for: files[id].sendItem) {
            apply(files[id].machine.failed(retryAfter: .zero), to: id)
            return
        }
        if error.code == .unauthorized, error.httpStatus == 401, configuration.tokenRefreshes > 0 {
            // The transport has refreshed the token by now (seed 004); retry at once, a limited number of times.
            if !final, files[id].refreshes < configuration.tokenRefreshes {
                files[id].refreshes += 1
                apply(files[id].machine.failed(retryAfter: .zero), to: id)
                return
            }
            // Added to the cause, which may say whose refusal it was (a ticket request's).
            let cause =
                (files[id].error?.cause.map { $0 + "; " } ?? "")
                + "still refused after \(files[id].refreshes) token refreshes"
            files[id].error?.cause = cause
        }
        let delay: Duration?
        var outlasted = false
        // Only a request that never reached the server is the outage's: one cut off mid-body (a reset, a crash on
        // this file) spends the file's own retries, or it would be tried for ever.
        let inProgress = error.httpStatus == 409 && error.retryAfter != nil
        if error.code == .connectionFailed, !sentBytes, !final {
            delay = outageRetry(id, probed: probed)
            outlasted = delay == nil
        } else if inProgress, !final {
            delay = inProgressRetry(id, after: error)
        } else {
            files[id].inProgressSince = nil
            let attempt = files[id].machine.attempt - files[id].outageFailures - files[id].inProgressWaits
            delay = configuration.retryPolicy.delay(after: error, attempt: attempt, unit: random())
        }
        // The server's wait for one key is no reason to hold the files behind.
        if !final, let delay, !inProgress, error.retryAfter != nil || error.code == .connectionFailed {
            hold(for: delay)
        }
        apply(files[id].machine.failed(retryAfter: final ? nil : delay), to: id)
        // A server gone for the outage's patience: the rest would wait as long.
        if outlasted, !stopping { stopBatch(after: id) }
    }

    /// - Parameter first: A file back in line after its retry's wait goes to the front: the wait was its turn, and
    ///   at the back of a long queue its row would read "retrying" far longer than the wait it was given.
    private func apply(_ action: UploadJob.StateMachine.Action, to id: Int, first: Bool = false) {
        changed.insert(id)
        switch action {
        case .none, .startTransfer:
            break
        case .emit(let phase):
            switch phase {
            case .preparing: emit(.preparing, id)
            case .modeling: emit(.modeling, id)
            case .verifying: emit(.verifying, id)
            case .done:
                emit(.done, id)
                discardPrepared(id)
            case .failed:
                emit(.failed, id)
                discardPrepared(id)
                let everyFile = files[id].error.map(failsEveryFile) ?? false
                if everyFile, !stopping {
                    stopBatch(after: id)
                } else if configuration.failFast {
                    stopBatch(after: id, everyFile: false)
                }
            case .cancelled:
                if let stoppedBy = files[id].stoppedBy {
                    // Its own answer may have come meanwhile (the same 401): the stop is why it ends so.
                    let kept = files[id].error.flatMap { $0.code == .cancelled ? $0.cause : nil }
                    files[id].error = UploadError(
                        .cancelled, file: files[id].item.relativePath,
                        cause: ([stoppedBy] + (kept.map { [$0] } ?? [])).joined(separator: "; "))
                }
                emit(.cancelled, id)
                discardPrepared(id)
            default: break
            }
        case .cancelTransfer:
            if let requestID = files[id].requestID { running[requestID]?.task.cancel() }
        case .scheduleRetry(let delay):
            emit(.retrying, id, retryDelay: delay)
            if delay <= .zero {
                // A renewed ticket or a refreshed token: go again now, without a timer.
                apply(files[id].machine.backoffElapsed(), to: id, first: planner.batchSize == 1)
                return
            }
            let clock = self.clock
            retryTimers[id] = Task(executorPreference: taskExecutor) { [weak self] in
                guard (try? await clock.sleep(for: delay)) != nil else { return }
                await self?.backoffElapsed(id)
            }
        case .enqueue where draining || batchStop != nil:
            // Back in line after a stop (an interrupted transfer, a batch-mate of the failure the batch stopped at):
            // it would never start.
            if let batchStop, files[id].stoppedBy == nil { files[id].stoppedBy = Self.stopCause(batchStop) }
            apply(files[id].machine.cancel(), to: id)
        case .enqueue where preparer != nil && files[id].prepared == nil && !files[id].sentAsIs:
            // A retried file whose prepared copy was removed when it ended.
            if first { prepareQueue.insert(id, at: prepareHead) } else { prepareQueue.append(id) }
            pumpPreparing()
        case .enqueue where first && queueHead > 0:
            queueHead -= 1
            queue[queueHead] = id
            pump()
        case .enqueue:
            if first { queue.insert(id, at: queueHead) } else { queue.append(id) }
            pump()
        }
    }

    /// Gives `id` a fresh `Idempotency-Key` for whatever sends it next (`r`, `R`, a rerun, which reads it from the
    /// journal's failed record): a server that honours the old key answers with the wrong copy it stored, or refuses
    /// the key for a request it no longer matches (422).
    private func renewKey(_ id: Int) {
        files[id].item.keyRenewal += 1
        let item = files[id].item
        files[id].curlCommand = LazyText { [planner] in planner.curlCommand(for: item) }
    }

    /// Cancels every file not done after `id` failed, each saying so: `R` or `--retry-failed` sends them once the
    /// cause is mended.
    /// - Parameter everyFile: The failure would meet the other files too; false for `--fail-fast`'s stop.
    private func stopBatch(after id: Int, everyFile: Bool = true) {
        // A second failure in the same answer (a batch-mate, --fail-fast) is the same stop.
        if batchStop == nil {
            let error = files[id].error
            // S3 names what to mend in its answer (`SignatureDoesNotMatch: …`, `NoSuchBucket: …`), not in the status;
            // a raw JSON or XML body would only crowd the line.
            let named = error?.bodyExcerpt.flatMap { $0.first?.isLetter == true ? $0 : nil }
            let excerpt = named.map { " \u{2014} " + BatchStop.shortened($0) } ?? ""
            batchStop = BatchStop(
                file: files[id].item.relativePath, error: (error?.summary ?? "failed") + excerpt, everyFile: everyFile)
        }
        let cause = batchStop.map(Self.stopCause) ?? ""
        stopping = true
        // The files of the request being answered met the same answer: each ends with it, not cancelled.
        for other in files.indices where !files[other].machine.phase.isFinal && !finishing.contains(other) {
            if files[other].stoppedBy == nil { files[other].stoppedBy = cause }
            cancel(other)
        }
        cancelQueued()
        stopping = false
        resumeWaitersIfIdle()
    }

    /// What a file the batch stop cancelled says of it.
    private static func stopCause(_ stop: BatchStop) -> String { "the batch stopped at \(stop.file)'s failure" }

    /// A refusal no file of the batch would escape: the batch stops at the first, and the files it cancels are what
    /// `R` and `--retry-failed` send again once the cause is mended.
    private func failsEveryFile(_ error: UploadError) -> Bool {
        // A proxy's refusal of its credentials meets every request, whatever the destination.
        error.httpStatus == 407 || planner.failsEveryFile(error)
    }

    /// A request is sending: one that probed an outage has found the server again, so the rest need not wait for
    /// its whole upload (a large file's, minutes on a slow link) before they start.
    private func sending(requestID: Int) {
        guard outage != nil, running[requestID]?.probed == true else { return }
        outage = nil
        pump()
    }

    /// The wait before the server is tried again after `id` found it gone, or nil once it has been gone for the
    /// outage's patience: then `id` fails saying so.
    private func outageRetry(_ id: Int, probed: Bool) -> Duration? {
        let now = clock.now
        var outage = self.outage ?? Outage(since: now)
        let delay = outage.retry(probed: probed, now: now, policy: configuration.retryPolicy, unit: random())
        self.outage = outage
        guard let delay else {
            let gone = Int((now - outage.since) / .seconds(1))
            let cause = files[id].error?.cause.map { $0 + "; " } ?? ""
            files[id].error?.cause = cause + "unreachable for \(gone) s: the run stops"
            // A retry the user asks for afterwards meets the server afresh.
            self.outage = nil
            return nil
        }
        files[id].outageFailures += 1
        return delay
    }

    /// The wait before `id` asks again after the server said it is still processing an earlier request under the
    /// same `Idempotency-Key` (a rerun right after an interruption, the first request still being modelled): the
    /// wait it asked for, at least the policy's shortest, spending none of the file's retries. Nil once the server
    /// has been at it for `inProgressPatience`: then `id` fails saying so.
    private func inProgressRetry(_ id: Int, after error: UploadError) -> Duration? {
        let now = clock.now
        let since = files[id].inProgressSince ?? now
        files[id].inProgressSince = since
        let asked = Duration.milliseconds(Int64(min(max(error.retryAfter ?? 0, 0), 300) * 1000))
        let wait = max(asked, configuration.retryPolicy.baseDelay)
        guard let patience = configuration.inProgressPatience else {
            files[id].inProgressWaits += 1
            return wait
        }
        let left = since + patience - now
        guard left > .zero else {
            let seconds = Int((now - since) / .seconds(1))
            let cause = files[id].error?.cause.map { $0 + "; " } ?? ""
            files[id].error?.cause =
                cause + "the server was still processing an earlier request with this Idempotency-Key after "
                + "\(seconds) s (--response-timeout)"
            return nil
        }
        files[id].inProgressWaits += 1
        // The last try is at the end of the patience, not a whole wait after it.
        return min(wait, left)
    }

    /// Starts nothing new for `delay`, the wait a server asked for; the queue moves on when it has passed.
    private func hold(for delay: Duration) {
        let until = clock.now + delay
        guard holdUntil.map({ until > $0 }) ?? true else { return }
        holdUntil = until
        holdTimer?.cancel()
        let clock = self.clock
        holdTimer = Task(executorPreference: taskExecutor) { [weak self] in
            guard (try? await clock.sleep(for: delay)) != nil else { return }
            await self?.pump()
        }
    }

    private func backoffElapsed(_ id: Int) {
        guard retryTimers.removeValue(forKey: id) != nil else { return }
        // A --batch group goes back in line behind the rest, where its files meet again under their key.
        apply(files[id].machine.backoffElapsed(), to: id, first: planner.batchSize == 1)
        resumeWaitersIfIdle()
    }

    private func cancel(_ id: Int) {
        guard files.indices.contains(id) else { return }
        retryTimers.removeValue(forKey: id)?.cancel()
        // Nothing waits for a cancelled preparation: its file is removed when it returns.
        preparing.remove(id)
        apply(files[id].machine.cancel(), to: id)
        resumeWaitersIfIdle()
    }

    private func retry(_ id: Int, first: Bool = false) {
        guard files.indices.contains(id) else { return }
        files[id].stoppedBy = nil
        files[id].inProgressSince = nil
        // The cause was the last attempt's: kept, the row would read "retrying · cancelled" until the next starts.
        files[id].error = nil
        // A --batch group keeps its place, where its files meet again under their key.
        apply(files[id].machine.retry(), to: id, first: first && planner.batchSize == 1)
    }

    private func togglePause(_ id: Int) {
        guard files.indices.contains(id), let requestID = files[id].requestID, var request = running[requestID] else {
            return
        }
        request.paused.toggle()
        running[requestID] = request
        changed.formUnion(request.fileIDs)
        transport.setPaused(request.paused, probe: request.probe)
    }

    private func resumeWaitersIfIdle() {
        guard isIdle else { return }
        graceTimer?.cancel()
        graceTimer = nil
        guard !idleWaiters.isEmpty else { return }
        let waiters = idleWaiters
        idleWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    private func emit(_ kind: UploadEvent.Kind, _ id: Int, retryDelay: Duration? = nil) {
        changed.insert(id)
        if let journal { record(kind, id, in: journal) }
        lastEventAt = clock.now
        events.yield(UploadEvent(kind: kind, file: fileSnapshot(id, now: lastEventAt), retryDelay: retryDelay))
    }

    private func record(_ kind: UploadEvent.Kind, _ id: Int, in journal: any UploadJournal) {
        let file = files[id]
        let outcome: JournalEntry.Outcome
        switch kind {
        case .started: outcome = .started
        case .done: outcome = .done(file.result)
        case .failed: outcome = .failed(file.error ?? UploadError(.requestFailed, file: file.item.relativePath))
        case .cancelled: outcome = .cancelled
        case .queued, .preparing, .prepared, .modeling, .verifying, .skipped, .retrying: return
        }
        journal.record(
            JournalEntry(
                item: file.item, destination: file.journalDestination, attempt: file.machine.attempt, outcome: outcome))
    }

    // MARK: - Snapshots

    /// The state of every file and of the batch, sampled now.
    public func snapshot() -> UploadSnapshot {
        let now = clock.now
        if rows.rows.count != files.count {
            rows.reset(files.indices.map { fileSnapshot($0, now: now) })
            changed.removeAll()
        }
        var refresh = changed
        for request in running.values { refresh.formUnion(request.fileIDs) }
        changed.removeAll(keepingCapacity: true)
        for id in refresh {
            if files[id].machine.phase == .willStart, let requestID = files[id].requestID,
                running[requestID]?.probe.sent ?? 0 > 0
            {
                _ = files[id].machine.bytesSent()
            }
            rows.replace(id, with: fileSnapshot(id, now: now))
        }
        let (sent, total) = (rows.bytesSent, rows.bytesTotal)
        let (rate, eta, etaRange) = tracker.sample(
            at: now, bytesSent: sent - bytesCarried, remaining: total - sent, files: rows.counts,
            cap: configuration.bandwidthLimit,
            answerWait: answerWait, width: configuration.concurrency)
        var progress = BatchProgress(
            counts: rows.counts, bytesSent: sent, bytesTotal: total, bytesPerSecond: rate, eta: eta,
            bytesSaved: rows.bytesSaved, etaRange: etaRange)
        progress.bytesCancelled = rows.bytesCancelled
        progress.bytesCarried = bytesCarried
        var snapshot = UploadSnapshot(
            files: rows.rows, progress: progress, toast: Toast(progress: progress),
            concurrency: configuration.concurrency, concurrencyIsAuto: configuration.autoConcurrency,
            transfersInFlight: slots.used, isIdle: isIdle, elapsed: isIdle ? lastEventAt : now,
            stopping: draining ? StopState(graceLeft: graceEnds.map { max(.zero, $0 - now) }) : nil,
            bandwidthLimit: configuration.bandwidthLimit)
        if let outage, !isIdle {
            let gone = now - outage.since
            snapshot.unreachable = Unreachable(
                gone: gone, patienceLeft: max(.zero, Outage.patience(configuration.retryPolicy) - gone))
        }
        snapshot.batchStop = batchStop
        return snapshot
    }

    private func fileSnapshot(_ id: Int, now: Duration) -> FileSnapshot {
        let file = files[id]
        let phase = file.machine.phase
        var sent: Int64 = 0
        var paused = false
        var rate = 0.0
        switch phase {
        case .done, .verifying:
            sent = file.sendSize
        case .failed, .cancelled:
            sent = file.lastSent
        case .willStart, .uploading, .modeling:
            if let requestID = file.requestID, let request = running[requestID],
                let index = request.fileIDs.firstIndex(of: id)
            {
                paused = request.paused
                let probe = request.probe
                if request.fileIDs.count == 1, probe.carried != file.carried {
                    bytesCarried += probe.carried - file.carried
                    files[id].carried = probe.carried
                }
                // The request carries framing too; scale its counters to the files' payload.
                sent = min(file.sendSize, max(0, request.payloadSent - request.offsets[index]))
                if probe.allSent { sent = file.sendSize }
                files[id].lastSent = sent
                rate = files[id].recentRate.update(sent: sent, at: now, started: file.attemptStarted)
                if paused { rate = 0 }
            }
        default:
            break
        }
        var row = FileSnapshot(
            id: id, name: file.item.relativePath, path: file.item.path, destination: file.destination,
            curlCommand: file.curlCommand, size: file.sendSize, sent: sent, phase: phase,
            attempt: file.machine.attempt, isPaused: paused,
            bytesPerSecond: rate, httpStatus: file.result?.httpStatus ?? file.error?.httpStatus,
            skipReason: phase == .skipped ? file.item.skipReason ?? "already uploaded" : nil)
        (row.resultBox, row.errorBox, row.preparationBox) = (file.resultBox, file.errorBox, file.preparationBox)
        return row
    }
}
