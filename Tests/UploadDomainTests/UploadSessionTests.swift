import Synchronization
import Testing
import UploadDomain

@Suite("UploadSession")
struct UploadSessionTests {
    /// A session of files of `sizes` on a clock the test moves, `random` at 1: each backoff its whole ceiling.
    private func scripted(
        _ sizes: [Int64], concurrency: Int, retryPolicy: RetryPolicy = RetryPolicy()
    ) -> (session: UploadSession, transport: InMemoryTransport, clock: ManualClock) {
        let transport = InMemoryTransport()
        let clock = ManualClock()
        let session = UploadSession(
            items: items(sizes), planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: concurrency, retryPolicy: retryPolicy), clock: clock, random: { 1 })
        return (session, transport, clock)
    }

    @Test("--concurrency auto: the tuner's widths apply until the user sets one, then are ignored")
    func autoConcurrencyYieldsToTheUser() async {
        let session = UploadSession(
            items: items([10]), planner: EchoPlanner(), transport: InMemoryTransport(),
            configuration: .init(concurrency: 4, autoConcurrency: true))
        await session.handle(.tuneConcurrency(8))
        var snapshot = await session.snapshot()
        #expect(snapshot.concurrency == 8 && snapshot.concurrencyIsAuto)
        await session.handle(.setConcurrency(3))
        await session.handle(.tuneConcurrency(16))
        snapshot = await session.snapshot()
        #expect(snapshot.concurrency == 3 && !snapshot.concurrencyIsAuto)
        let fixed = UploadSession(
            items: items([10]), planner: EchoPlanner(), transport: InMemoryTransport(),
            configuration: .init(concurrency: 2))
        await fixed.handle(.tuneConcurrency(16))
        #expect(await fixed.snapshot().concurrency == 2)
    }

    @Test("the concurrency cap holds, progress folds into per-file and batch figures, and phases go in order")
    func progressAggregation() async throws {
        let (session, transport, clock) = scripted([100, 200, 300], concurrency: 2)
        var events = session.events.makeAsyncIterator()
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let pair = try await started.next(2)
        let (first, second) = (pair[0], pair[1])
        #expect(first.request.files.map(\.id) == [0])
        #expect(second.request.files.map(\.id) == [1])

        var snapshot = await session.snapshot()
        #expect(snapshot.progress.counts.willStart == 2)
        #expect(snapshot.progress.counts.queued == 1)
        #expect(snapshot.toast == .willStart)

        // The request counts framing bytes too: 50 of 125 request bytes is 40 of the file's 100.
        first.probe.report(sent: 50, total: 125)
        snapshot = await session.snapshot()
        #expect(snapshot.files[0].sent == 40)
        #expect(snapshot.progress.bytesSent == 40)
        #expect(snapshot.progress.bytesTotal == 600)
        #expect(snapshot.toast == .uploading(fraction: 40.0 / 600.0))

        first.probe.report(sent: 125, total: 125)
        #expect(await awaitEvent(.modeling, file: 0, in: &events) != nil)
        snapshot = await session.snapshot()
        #expect(snapshot.files[0].phase == .modeling)
        #expect(snapshot.files[0].sent == 100)

        first.reply(.success(TransferResponse(status: 201, body: "ok")))
        let done = try #require(await awaitEvent(.done, file: 0, in: &events))
        #expect(done.file.result?.location == "f0.jpg")
        let third = try #require(await started.next())
        #expect(third.request.files.map(\.id) == [2])

        second.reply(.success(TransferResponse(status: 503, headers: ["retry-after": "2"], body: "busy")))
        let retrying = try #require(await awaitEvent(.retrying, file: 1, in: &events))
        #expect(retrying.file.error?.httpStatus == 503)
        #expect(retrying.file.phase == .queued)
        // The retry's timer and the hold Retry-After puts on new requests.
        await clock.waitForSleeper(count: 2)
        clock.advance(by: .seconds(2))
        let again = try #require(await started.next())
        #expect(again.request.files.map(\.id) == [1])
        #expect(await session.snapshot().files[1].attempt == 2)

        again.reply(.success(TransferResponse(status: 400, body: "{\"error\":\"bad\"}")))
        let failed = try #require(await awaitEvent(.failed, file: 1, in: &events))
        #expect(failed.file.error?.httpStatus == 400)
        #expect(failed.file.error?.bodyExcerpt == "{\"error\":\"bad\"}")

        third.reply(.success(TransferResponse(status: 200)))
        await session.waitUntilIdle()
        snapshot = await session.snapshot()
        #expect(snapshot.progress.counts.done == 2)
        #expect(snapshot.progress.counts.failed == 1)
        #expect(snapshot.toast == .fail(failed: 1, cancelled: 0))
    }

    @Test(
        "a server that cannot be reached is probed by one request at a time; the waiting files keep their retries",
        .timeLimit(.minutes(1)))
    func outageProbedByOne() async throws {
        let (session, transport, clock) = scripted(
            [10, 20, 30], concurrency: 3, retryPolicy: RetryPolicy(maxRetries: 5))
        var started = transport.started.makeAsyncIterator()
        await session.start()
        for pending in try await started.next(3) {
            pending.reply(.failure(UploadError(.connectionFailed, cause: "Connection refused")))
        }
        // Three retry timers and the hold on new requests; then the retries are due.
        await clock.waitForSleeper(count: 4)
        clock.advance(by: .seconds(1))
        let probe = try #require(await started.next())
        var snapshot = await session.snapshot()
        #expect(snapshot.progress.counts.willStart == 1)
        #expect(snapshot.progress.counts.queued == 2)
        probe.reply(.failure(UploadError(.connectionFailed, cause: "Connection refused")))
        await clock.waitForSleeper(count: 2)
        clock.advance(by: .seconds(2))
        let second = try #require(await started.next())
        // An answer: the others go too, on their second attempt, whatever the probe's count.
        second.reply(.success(TransferResponse(status: 201)))
        for pending in try await started.next(2) { pending.reply(.success(TransferResponse(status: 201))) }
        await session.waitUntilIdle()
        snapshot = await session.snapshot()
        #expect(snapshot.progress.counts.done == 3)
        #expect(snapshot.files.map(\.attempt).sorted() == [2, 2, 3])
    }

    @Test(
        "a file back from its retry's wait goes before the files still queued, not behind them", .timeLimit(.minutes(1))
    )
    func retryGoesFirst() async throws {
        let (session, transport, clock) = scripted([10, 20, 30, 40], concurrency: 1)
        var started = transport.started.makeAsyncIterator()
        await session.start()
        try #require(await started.next()).reply(.success(TransferResponse(status: 500, body: "oops")))
        let second = try #require(await started.next())
        await clock.waitForSleeper(count: 1)
        clock.advance(by: .seconds(1))
        second.reply(.success(TransferResponse(status: 201)))
        // Whichever comes first, the end of its wait or the free slot, file 0 goes before file 3: behind the queue it
        // would be last.
        var order = [0, 1]
        for _ in 0..<3 {
            let next = try #require(await started.next())
            order += next.request.files.map(\.id)
            next.reply(.success(TransferResponse(status: 201)))
        }
        await session.waitUntilIdle()
        #expect(order.lastIndex(of: 0)! < order.firstIndex(of: 3)!, "\(order)")
        #expect(await session.snapshot().progress.counts.done == 4)
    }

    @Test(
        "an outage's tries are not the file's: a file allowed one retry outlives five refused tries",
        .timeLimit(.minutes(1)))
    func outageSpendsNoRetries() async throws {
        let (session, transport, clock) = scripted([10], concurrency: 1, retryPolicy: RetryPolicy(maxRetries: 1))
        var started = transport.started.makeAsyncIterator()
        await session.start()
        // Backoff doubles from half a second to 10 s (the whole ceiling with `random` at 1): 25.5 s of one retry's
        // 30 s of patience have gone at the last refusal, so the next wait is still given.
        for delay in [0.5, 1, 2, 4, 8, 10, 10] {
            try #require(await started.next()).reply(
                .failure(UploadError(.connectionFailed, cause: "Connection refused")))
            await clock.waitForSleeper(count: 2)  // the retry's timer and the hold on new requests
            clock.advance(by: .seconds(delay))
        }
        try #require(await started.next()).reply(.success(TransferResponse(status: 201)))
        await session.waitUntilIdle()
        let file = try #require(await session.snapshot().files.first)
        #expect(file.phase == .done && file.attempt == 8)
    }

    @Test(
        "an outage's last wait ends at its patience: the run stops at 30 s, not a whole backoff later",
        .timeLimit(.minutes(1)))
    func outageStopsAtItsPatience() async throws {
        let (session, transport, clock) = scripted([10], concurrency: 1, retryPolicy: RetryPolicy(maxRetries: 1))
        var started = transport.started.makeAsyncIterator()
        await session.start()
        // Refused at 0, 0.5, 1.5, 3.5, 7.5, 15.5 and 25.5 s: the wait after the last would be 10 s, past the 30 s.
        for delay in [0.5, 1, 2, 4, 8, 10] {
            try #require(await started.next()).reply(
                .failure(UploadError(.connectionFailed, cause: "Connection refused")))
            await clock.waitForSleeper(count: 2)
            clock.advance(by: .seconds(delay))
        }
        try #require(await started.next()).reply(.failure(UploadError(.connectionFailed, cause: "Connection refused")))
        await clock.waitForSleeper(count: 2)
        try #require(clock.deadlines.max() == .seconds(30), "\(clock.deadlines)")
        clock.advance(by: .seconds(4.5))
        try #require(await started.next()).reply(.failure(UploadError(.connectionFailed, cause: "Connection refused")))
        await session.waitUntilIdle()
        let file = try #require(await session.snapshot().files.first)
        #expect(file.phase == .failed && file.error?.cause == "Connection refused; unreachable for 30 s: the run stops")
    }

    @Test(
        "an outage ends when the probe starts sending: the rest do not wait for its whole upload",
        .timeLimit(.minutes(1)))
    func outageEndsWhenTheProbeSends() async throws {
        let (session, transport, clock) = scripted([1000, 20], concurrency: 2)
        var started = transport.started.makeAsyncIterator()
        await session.start()
        for pending in try await started.next(2) {
            pending.reply(.failure(UploadError(.connectionFailed, cause: "Connection refused")))
        }
        await clock.waitForSleeper(count: 3)
        clock.advance(by: .seconds(1))
        let probe = try #require(await started.next())
        probe.probe.report(sent: 1, total: 1000)
        let other = try #require(await started.next(), "started while the probe is still sending")
        #expect(Set([probe.request.files[0].id, other.request.files[0].id]) == [0, 1])
        for pending in [other, probe] { pending.reply(.success(TransferResponse(status: 201))) }
        await session.waitUntilIdle()
        #expect(await session.snapshot().progress.counts.done == 2)
    }

    @Test(
        "a request cut off after its body began to go spends the file's own retries: no outage, no endless retry",
        .timeLimit(.minutes(1)))
    func cutOffMidBodyIsNoOutage() async throws {
        let (session, transport, clock) = scripted([10], concurrency: 1, retryPolicy: RetryPolicy(maxRetries: 1))
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let first = try #require(await started.next())
        first.probe.report(sent: 5, total: 10)
        first.reply(.failure(UploadError(.connectionFailed, cause: "Connection reset by peer")))
        await clock.waitForSleeper(count: 2)
        clock.advance(by: .seconds(1))
        let second = try #require(await started.next())
        second.probe.report(sent: 5, total: 10)
        second.reply(.failure(UploadError(.connectionFailed, cause: "Connection reset by peer")))
        await session.waitUntilIdle()
        let file = try #require(await session.snapshot().files.first)
        #expect(file.phase == .failed && file.attempt == 2)
        #expect(file.error?.cause == "Connection reset by peer")
    }

    @Test(
        "a server gone for longer than the outage's patience fails the probe saying so and stops the run",
        .timeLimit(.minutes(1)))
    func outageOutlasted() async throws {
        let (session, transport, clock) = scripted(
            [10, 20, 30], concurrency: 1,
            retryPolicy: RetryPolicy(maxRetries: 1, baseDelay: .seconds(1), maxDelay: .seconds(2)))
        var started = transport.started.makeAsyncIterator()
        await session.start()
        try #require(await started.next()).reply(.failure(UploadError(.connectionFailed, cause: "Connection refused")))
        await clock.waitForSleeper(count: 2)
        clock.advance(by: .seconds(1))
        try #require(await started.next()).reply(.failure(UploadError(.connectionFailed, cause: "Connection refused")))
        await clock.waitForSleeper(count: 2)
        clock.advance(by: .seconds(2))
        try #require(await started.next()).reply(.failure(UploadError(.connectionFailed, cause: "Connection refused")))
        await session.waitUntilIdle()
        let snapshot = await session.snapshot()
        #expect(snapshot.progress.counts.failed == 1 && snapshot.progress.counts.cancelled == 2)
        let failed = try #require(snapshot.files.first { $0.phase == .failed })
        #expect(failed.error?.cause == "Connection refused; unreachable for 3 s: the run stops")
    }

    @Test(
        "batches are fixed groups of the scan's order: files done before leave their group short, not shifted",
        .timeLimit(.minutes(1)))
    func batchesAreFixedGroups() async throws {
        let transport = InMemoryTransport()
        let session = UploadSession(
            items: items([1, 2, 3, 4, 5, 6, 7]), planner: EchoPlanner(batchSize: 3), transport: transport,
            configuration: .init(concurrency: 3))
        var started = transport.started.makeAsyncIterator()
        await session.start(skipping: [1])
        let requests = try await started.next(3)
        #expect(requests.map { $0.request.files.map(\.id) } == [[0, 2], [3, 4, 5], [6]])
        for pending in requests { pending.reply(.success(TransferResponse(status: 201))) }
        await session.waitUntilIdle()
    }

    @Test("request tasks run on the transport's executor when it offers one")
    func requestTasksPreferTransportExecutor() async throws {
        let executor = CountingExecutor()
        let transport = InMemoryTransport(taskExecutor: executor)
        let session = UploadSession(
            items: items([10, 20]), planner: EchoPlanner(), transport: transport, configuration: .init(concurrency: 2))
        #expect(session.taskExecutor === executor)
        var started = transport.started.makeAsyncIterator()
        await session.start()
        for _ in 0..<2 { try #require(await started.next()).reply(.success(TransferResponse(status: 201))) }
        await session.waitUntilIdle()
        #expect(await session.snapshot().progress.counts.done == 2)
        // Each request task starts and resumes there; with the global executor none would.
        #expect(executor.jobs.load(ordering: .relaxed) >= 4)
    }

    @Test("cancelling one file ends it cancelled and leaves the others running; retry sends it again")
    func cancelOneThenRetry() async throws {
        let transport = InMemoryTransport()
        let session = UploadSession(
            items: items([10, 20]), planner: EchoPlanner(), transport: transport, configuration: .init(concurrency: 2))
        var events = session.events.makeAsyncIterator()
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let pair = try await started.next(2)
        let (first, second) = (pair[0], pair[1])
        await session.handle(.cancel(fileID: 0))
        #expect(await awaitEvent(.cancelled, file: 0, in: &events) != nil)
        second.reply(.success(TransferResponse(status: 201)))
        #expect(await awaitEvent(.done, file: 1, in: &events) != nil)
        first.reply(.success(TransferResponse(status: 201)))  // too late: the transfer was torn down
        // The cancelled file stays in the batch's bytes: its bar is not full with one file of two done.
        let stopped = await session.snapshot().progress
        #expect(stopped.bytesOfBatch == 30 && stopped.bytesSent == 20)
        #expect(stopped.fraction < 1)
        await session.handle(.retry(fileID: 0))
        let retried = try #require(await started.next())
        #expect(retried.request.files.map(\.id) == [0])
        retried.reply(.success(TransferResponse(status: 201)))
        #expect(await awaitEvent(.done, file: 0, in: &events) != nil)
        await session.waitUntilIdle()
        #expect(await session.snapshot().toast == .done)
    }

    @Test("r on a cancelled file sends it next, before the queued files, and its row reads queued; R keeps the order")
    func retryOneGoesNext() async throws {
        let transport = InMemoryTransport()
        let session = UploadSession(
            items: items([10, 10, 10, 10, 10]), planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 2))
        var events = session.events.makeAsyncIterator()
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let pair = try await started.next(2)
        await session.handle(.cancel(fileID: 4))
        // Cancelled in flight: its request is torn down, and the freed slot starts the next queued file.
        await session.handle(.cancel(fileID: 1))
        #expect(await awaitEvent(.cancelled, file: 1, in: &events) != nil)
        let third = try #require(await started.next())
        #expect(third.request.files.map(\.id) == [2])
        await session.handle(.retry(fileID: 1))
        let row = await session.snapshot().files[1]
        #expect(row.phase == .queued && row.error == nil)
        pair[0].reply(.success(TransferResponse(status: 201)))
        let next = try #require(await started.next())
        #expect(next.request.files.map(\.id) == [1])
        // R sends every file not done, behind those already queued.
        await session.handle(.retryUnfinished)
        var order: [Int] = []
        for request in [third, next] {
            // One slot frees at a time: the files start in queue order.
            request.reply(.success(TransferResponse(status: 201)))
            let again = try #require(await started.next())
            order += again.request.files.map(\.id)
            again.reply(.success(TransferResponse(status: 201)))
        }
        #expect(order == [3, 4])
        await session.waitUntilIdle()
        #expect(await session.snapshot().files.allSatisfy { $0.phase == .done })
    }

    @Test("a 429 with Retry-After holds every new request until then, not only the refused file's retry")
    func retryAfterHoldsTheQueue() async throws {
        let (session, transport, clock) = scripted([10, 10, 10, 10], concurrency: 2)
        var events = session.events.makeAsyncIterator()
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let pair = try await started.next(2)
        let (first, second) = (pair[0], pair[1])
        first.reply(.success(TransferResponse(status: 429, headers: ["retry-after": "5"])))
        #expect(await awaitEvent(.retrying, file: 0, in: &events) != nil)
        second.reply(.success(TransferResponse(status: 201)))
        #expect(await awaitEvent(.done, file: 1, in: &events) != nil)
        // Two slots free, two files waiting: nothing starts while the server said to wait.
        var snapshot = await session.snapshot()
        #expect(snapshot.files[2].phase == .queued && snapshot.files[3].phase == .queued)
        #expect(snapshot.transfersInFlight == 0)
        // The refused file's retry and the hold both wait on the clock.
        await clock.waitForSleeper(count: 2)
        clock.advance(by: .seconds(5))
        let next = try #require(await started.next())
        #expect([0, 2, 3].contains(next.request.files[0].id))
        snapshot = await session.snapshot()
        #expect(snapshot.transfersInFlight >= 1)
        await session.handle(.cancelAll)
        await session.waitUntilIdle()
    }

    @Test("the elapsed time stops when the last file ends and runs again with a retry")
    func elapsedStopsWhenIdle() async throws {
        let transport = InMemoryTransport()
        let clock = ManualClock()
        let session = UploadSession(
            items: items([10]), planner: EchoPlanner(), transport: transport, configuration: .init(concurrency: 1),
            clock: clock)
        var events = session.events.makeAsyncIterator()
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let first = try #require(await started.next())
        clock.advance(by: .seconds(3))
        #expect(await session.snapshot().elapsed == .seconds(3))
        first.reply(.success(TransferResponse(status: 400)))
        #expect(await awaitEvent(.failed, file: 0, in: &events) != nil)
        await session.waitUntilIdle()
        // The screen waits for q: "uploaded in" and its clock read the minutes spent looking at it.
        clock.advance(by: .seconds(60))
        #expect(await session.snapshot().elapsed == .seconds(3))
        await session.handle(.retry(fileID: 0))
        let again = try #require(await started.next())
        #expect(await session.snapshot().elapsed == .seconds(63))
        clock.advance(by: .seconds(1))
        again.reply(.success(TransferResponse(status: 201)))
        #expect(await awaitEvent(.done, file: 0, in: &events) != nil)
        await session.waitUntilIdle()
        clock.advance(by: .seconds(5))
        #expect(await session.snapshot().elapsed == .seconds(64))
    }

    @Test("R on a batch that was idle: the rate and the ETA count from the retry, not over the idle minutes")
    func retryAfterIdleStartsAfresh() async throws {
        let transport = InMemoryTransport()
        let clock = ManualClock()
        let session = UploadSession(
            items: items([100_000]), planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 1, retryPolicy: RetryPolicy(maxRetries: 0)), clock: clock)
        var events = session.events.makeAsyncIterator()
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let first = try #require(await started.next())
        // 10 kB a second (the request's 125 bytes per 100 of the file), then a refusal.
        for second in 1...5 {
            clock.advance(by: .seconds(1))
            first.probe.report(sent: Int64(second) * 12_500, total: 125_000)
            _ = await session.snapshot()
        }
        first.reply(.failure(UploadError(.httpStatus(500), httpStatus: 500)))
        #expect(await awaitEvent(.failed, file: 0, in: &events) != nil)
        await session.waitUntilIdle()
        // Ten minutes on the failed screen, read ten times a second.
        for _ in 0..<6_000 {
            clock.advance(by: .milliseconds(100))
            _ = await session.snapshot()
        }
        await session.handle(.retry(fileID: 0))
        let again = try #require(await started.next())
        var snapshot = await session.snapshot()
        // Now 20 kB a second.
        for second in 1...3 {
            clock.advance(by: .seconds(1))
            again.probe.report(sent: Int64(second) * 25_000, total: 125_000)
            snapshot = await session.snapshot()
        }
        #expect(abs(snapshot.progress.bytesPerSecond - 20_000) < 1, "\(snapshot.progress)")
        // 40 kB left at 20 kB/s.
        #expect(snapshot.progress.eta == .seconds(2), "\(snapshot.progress)")
        let range = try #require(snapshot.progress.etaRange)
        #expect(range.high <= .seconds(3), "\(range)")
        again.reply(.success(TransferResponse(status: 201)))
        await session.waitUntilIdle()
    }

    @Test("pause and resume go to the transport for the file's transfer and show on its row")
    func pauseResume() async throws {
        let transport = InMemoryTransport()
        let session = UploadSession(items: items([10]), planner: EchoPlanner(), transport: transport)
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let request = try #require(await started.next())
        await session.handle(.togglePause(fileID: 0))
        #expect(await session.snapshot().files[0].isPaused)
        await session.handle(.togglePause(fileID: 0))
        #expect(await !session.snapshot().files[0].isPaused)
        #expect(transport.pausedCalls.withLock { $0 } == [true, false])
        request.reply(.success(TransferResponse(status: 201)))
        await session.waitUntilIdle()
    }

    @Test("the bandwidth cap goes to the transport at the start and when changed, and shows in the snapshot")
    func bandwidthLimit() async throws {
        let transport = InMemoryTransport()
        let session = UploadSession(
            items: items([10]), planner: EchoPlanner(), transport: transport,
            configuration: .init(bandwidthLimit: 2 << 20))
        var started = transport.started.makeAsyncIterator()
        #expect(transport.bandwidthCalls.withLock { $0 } == [])
        await session.start()
        let request = try #require(await started.next())
        #expect(await session.snapshot().bandwidthLimit == 2 << 20)
        await session.handle(.setBandwidthLimit(1 << 20))
        #expect(await session.snapshot().bandwidthLimit == 1 << 20)
        await session.handle(.setBandwidthLimit(nil))
        #expect(await session.snapshot().bandwidthLimit == nil)
        #expect(transport.bandwidthCalls.withLock { $0 } == [2 << 20, 1 << 20, nil])
        request.reply(.success(TransferResponse(status: 201)))
        await session.waitUntilIdle()
    }

    @Test("without a cap the transport is not told of one")
    func noBandwidthLimit() async throws {
        let transport = InMemoryTransport()
        let session = UploadSession(items: items([10]), planner: EchoPlanner(), transport: transport)
        var started = transport.started.makeAsyncIterator()
        await session.start()
        try #require(await started.next()).reply(.success(TransferResponse(status: 201)))
        await session.waitUntilIdle()
        #expect(await session.snapshot().bandwidthLimit == nil)
        #expect(transport.bandwidthCalls.withLock { $0 } == [])
    }

    @Test("a batch request spreads its progress over its files in order")
    func batchProgress() async throws {
        let transport = InMemoryTransport()
        var planner = EchoPlanner()
        planner.batchSize = 3
        let session = UploadSession(items: items([100, 100, 100]), planner: planner, transport: transport)
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let request = try #require(await started.next())
        #expect(request.request.files.count == 3)
        request.probe.report(sent: 150, total: 300)
        let files = await session.snapshot().files
        #expect(files.map(\.sent) == [100, 50, 0])
        request.reply(.success(TransferResponse(status: 201)))
        await session.waitUntilIdle()
    }

    @Test("a file refused after its bytes went out keeps them on its failed row, not in the batch's bytes sent")
    func failedKeepsItsBytes() async throws {
        let transport = InMemoryTransport()
        let session = UploadSession(
            items: items([100]), planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 1, retryPolicy: RetryPolicy(maxRetries: 0)), clock: ManualClock(),
            random: { 1 })
        var events = session.events.makeAsyncIterator()
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let request = try #require(await started.next())
        request.probe.report(sent: 125, total: 125)
        #expect(await awaitEvent(.modeling, file: 0, in: &events)?.file.sent == 100)
        request.reply(.failure(UploadError(.httpStatus(401), httpStatus: 401)))
        let failed = try #require(await awaitEvent(.failed, file: 0, in: &events))
        #expect(failed.file.sent == 100)
        // The batch's bar is of bytes that may still end done: a failed file's are not, and 100% would read as done.
        #expect(await session.snapshot().progress.bytesSent == 0)
        #expect(await session.snapshot().progress.fraction < 1)
    }

    @Test("under a bandwidth cap, neither end of the ETA range comes sooner than the bytes left at the cap")
    func etaUnderCap() async throws {
        let transport = InMemoryTransport()
        let clock = ManualClock()
        let session = UploadSession(
            items: items([100_000]), planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 1, bandwidthLimit: 1_000), clock: clock, random: { 1 })
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let request = try #require(await started.next())
        var snapshot = await session.snapshot()
        // Faster than the cap (the transport here does not hold to it): the estimator alone would say seconds.
        for second in 1...5 {
            clock.advance(by: .seconds(1))
            request.probe.report(sent: Int64(second) * 5_000, total: 125_000)
            snapshot = await session.snapshot()
        }
        let range = try #require(snapshot.progress.etaRange)
        let left = (100_000 - snapshot.progress.bytesSent) / 1_000
        #expect(range.low >= .seconds(left), "\(range)")
        #expect(range.high >= range.low)
        request.reply(.success(TransferResponse(status: 201, body: "ok")))
        await session.waitUntilIdle()
    }

    @Test("unreadable files and unlistable folders fail at once without a request, naming the cause")
    func unreadable() async {
        let transport = InMemoryTransport()
        let item = UploadItem(
            id: 0, path: "/x", relativePath: "x.jpg", size: 0, modified: 0, contentType: "image/jpeg",
            unreadableReason: "Permission denied")
        let folder = UploadItem(
            id: 1, path: "/locked", relativePath: "locked/", size: 0, modified: 0, contentType: "",
            unreadableReason: "Permission denied", isFolder: true)
        let session = UploadSession(items: [item, folder], planner: EchoPlanner(), transport: transport)
        await session.start()
        await session.waitUntilIdle()
        let files = await session.snapshot().files
        #expect(files.map(\.phase) == [.failed, .failed])
        #expect(files[0].error?.description == "x.jpg: cannot read file: Permission denied")
        #expect(files[1].error?.description == "locked/: cannot list folder: Permission denied")
    }
}

/// Asks for one extra slot per upload, as an S3 multipart upload does for its second part.
final class GreedyPlanner: RequestPlanner {
    let granted = Mutex<[Bool]>([])
    var batchSize: Int { 1 }
    func destination(of item: UploadItem) -> String { "mem://" }
    func curlCommand(for item: UploadItem) -> String { "" }
    func request(for items: [UploadItem]) async throws(UploadError) -> TransferRequest {
        try await EchoPlanner().request(for: items)
    }
    func results(for items: [UploadItem], response: TransferResponse) -> [UploadResult] {
        EchoPlanner().results(for: items, response: response)
    }
    func upload(
        _ items: [UploadItem], via transport: any UploadTransport, probe: TransferProbe, slots: TransferSlots
    ) async throws -> TransferResponse {
        let extra = slots.tryAcquire()
        granted.withLock { $0.append(extra) }
        defer { if extra { slots.release() } }
        return try await transport.send(try await request(for: items), probe: probe)
    }
}

@Suite("TransferSlots")
struct TransferSlotsTests {
    @Test("uploads made of several requests get extra slots only while the cap has room")
    func capHolds() async throws {
        let transport = InMemoryTransport()
        let planner = GreedyPlanner()
        let session = UploadSession(
            items: items([1, 1]), planner: planner, transport: transport, configuration: .init(concurrency: 3))
        var started = transport.started.makeAsyncIterator()
        await session.start()
        // Two files hold two slots of three: one of them gets the third as an extra, the other gets none.
        let pair = try await started.next(2)
        let (first, second) = (pair[0], pair[1])
        #expect(planner.granted.withLock { $0 }.sorted { !$0 && $1 } == [false, true])
        first.reply(.success(TransferResponse(status: 201)))
        second.reply(.success(TransferResponse(status: 201)))
        await session.waitUntilIdle()
        #expect(await session.snapshot().progress.counts.done == 2)
    }
}
