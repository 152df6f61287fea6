import Testing
import UploadDomain

/// `stop` (the first Ctrl-C, `q`, `C`): nothing new starts, the transfers in flight finish within the grace period.
@Suite("UploadSession stop")
struct UploadSessionStopTests {
    @Test("queued files end cancelled at once; those in flight finish done; nothing new starts; a failure is final")
    func inFlightFinish() async throws {
        let transport = InMemoryTransport()
        let clock = ManualClock()
        let session = UploadSession(
            items: items([10, 20, 30, 40]), planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 2, grace: .seconds(10)), clock: clock, random: { 1 })
        var events = session.events.makeAsyncIterator()
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let first = try #require(await started.next())
        let second = try #require(await started.next())

        await session.handle(.stop)
        var snapshot = await session.snapshot()
        #expect(snapshot.files.map(\.phase) == [.willStart, .willStart, .cancelled, .cancelled])
        #expect(snapshot.stopping?.graceLeft == .seconds(10))
        #expect(!snapshot.isIdle)
        clock.advance(by: .seconds(4))
        #expect(await session.snapshot().stopping?.graceLeft == .seconds(6))

        first.reply(.success(TransferResponse(status: 201, body: "ok")))
        #expect(await awaitEvent(.done, file: 0, in: &events) != nil)
        // A failure that would be retried is final once stopping: no retry timer keeps the batch alive.
        second.reply(.success(TransferResponse(status: 503, headers: ["retry-after": "1"], body: "busy")))
        #expect(await awaitEvent(.failed, file: 1, in: &events) != nil)
        await session.waitUntilIdle()
        snapshot = await session.snapshot()
        #expect(snapshot.files.map(\.phase) == [.done, .failed, .cancelled, .cancelled])
        #expect(snapshot.isIdle)
        // Once the stop is over, R takes the batch up again: the failed file and the ones the stop cancelled.
        await session.handle(.retryUnfinished)
        #expect(await session.snapshot().stopping == nil)
        var retried: [Int] = []
        for _ in 0..<3 {
            let again = try #require(await started.next())
            retried += again.request.files.map(\.id)
            again.reply(.success(TransferResponse(status: 201)))
        }
        #expect(retried.sorted() == [1, 2, 3])
        await session.waitUntilIdle()
        #expect(await session.snapshot().files.map(\.phase) == [.done, .done, .done, .done])
    }

    @Test("while a stop drains, retry commands start nothing")
    func noRetryWhileDraining() async throws {
        let transport = InMemoryTransport()
        let session = UploadSession(
            items: items([10, 20]), planner: EchoPlanner(), transport: transport, configuration: .init(concurrency: 1))
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let first = try #require(await started.next())
        await session.handle(.stop)
        await session.handle(.retry(fileID: 1))
        #expect(await session.snapshot().files[1].phase == .cancelled)
        first.reply(.success(TransferResponse(status: 201)))
        await session.waitUntilIdle()
        #expect(await session.snapshot().files.map(\.phase) == [.done, .cancelled])
    }

    @Test("when the grace period ends, the transfers still in flight are aborted, saying why")
    func graceEnds() async throws {
        let transport = InMemoryTransport()
        let clock = ManualClock()
        let session = UploadSession(
            items: items([10, 20]), planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 1, grace: .seconds(5)), clock: clock)
        var events = session.events.makeAsyncIterator()
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let first = try #require(await started.next())
        first.probe.report(sent: 10, total: 10)
        await session.handle(.stop)
        await session.handle(.stop)  // asked twice: still one grace period, nothing aborted yet
        #expect(await session.snapshot().files[0].phase != .cancelled)
        await clock.waitForSleeper()
        clock.advance(by: .seconds(5))
        let aborted = try #require(await awaitEvent(.cancelled, file: 0, in: &events))
        // Every byte went: the server may hold it, and the line says so.
        #expect(
            aborted.file.error?.cause
                == "aborted when --grace ran out; every byte was sent, so the server may hold it: a rerun finds out",
            "\(String(describing: aborted.file.error))")
        await session.waitUntilIdle()
        #expect(await session.snapshot().files.map(\.phase) == [.cancelled, .cancelled])
    }

    @Test("a stop with nothing in flight leaves the batch idle at once; cancelAll still aborts during a stop")
    func nothingInFlightAndAbort() async throws {
        let transport = InMemoryTransport()
        let clock = ManualClock()
        let idle = UploadSession(
            items: items([10]), planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 1), clock: clock)
        await idle.handle(.stop)
        await idle.start()
        await idle.waitUntilIdle()
        #expect(await idle.snapshot().stopping?.graceLeft == nil)

        let session = UploadSession(
            items: items([10, 20]), planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 2), clock: clock)
        var started = transport.started.makeAsyncIterator()
        await session.start()
        _ = try #require(await started.next())
        _ = try #require(await started.next())
        await session.handle(.stop)
        await session.handle(.cancelAll)
        await session.waitUntilIdle()
        #expect(await session.snapshot().files.map(\.phase) == [.cancelled, .cancelled])
    }

    @Test("an item with a skip reason (a link not followed) ends skipped with it, and is not sent")
    func skipReason() async throws {
        let transport = InMemoryTransport()
        let link = UploadItem(
            id: 1, path: "/data/link.jpg", relativePath: "link.jpg", size: 0, modified: 0,
            contentType: "application/octet-stream", skipReason: "symbolic link to /etc/passwd, not followed")
        let session = UploadSession(
            items: [items([10])[0], link], planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 2))
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let request = try #require(await started.next())
        #expect(request.request.files.map(\.id) == [0])
        let snapshot = await session.snapshot()
        #expect(snapshot.files[1].phase == .skipped)
        #expect(snapshot.files[1].skipReason == "symbolic link to /etc/passwd, not followed")
        #expect(snapshot.files[0].skipReason == nil)
        #expect(snapshot.progress.counts.skipped == 1)
        request.reply(.success(TransferResponse(status: 201)))
        await session.waitUntilIdle()
    }

    @Test("a stop's line cuts a long message, keeping the hint after its last dash whole")
    func stopLineKeepsHint() {
        let hint = "the bucket is in eu-west-1: pass --region eu-west-1"
        let message =
            "AuthorizationHeaderMalformed: The authorization header is malformed; the region 'us-east-1' is wrong; "
            + "expecting 'eu-west-1' \u{2014} " + hint
        let short = BatchStop.shortened(message)
        #expect(short.hasPrefix("AuthorizationHeaderMalformed: The authorization"), "\(short)")
        #expect(short.hasSuffix("\u{2026} \u{2014} " + hint), "\(short)")
        #expect(short.count <= 110)
        #expect(BatchStop.shortened("NoSuchBucket \u{2014} " + hint) == "NoSuchBucket \u{2014} " + hint)
        #expect(
            BatchStop.shortened(String(repeating: "x", count: 150)) == String(repeating: "x", count: 100) + "\u{2026}")
    }

    @Test("a batch stopped at a failure cancels the rest, each saying at which; R sends every file not done again")
    func stoppedAtFailure() async throws {
        let transport = InMemoryTransport()
        let session = UploadSession(
            items: items([10, 20, 30]), planner: EchoPlanner(), transport: transport,
            configuration: .init(concurrency: 1, failFast: true), clock: ManualClock(), random: { 1 })
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let first = try #require(await started.next())
        first.reply(.success(TransferResponse(status: 400, body: "bad")))
        await session.waitUntilIdle()
        let files = await session.snapshot().files
        #expect(files.map(\.phase) == [.failed, .cancelled, .cancelled])
        #expect(files.dropFirst().allSatisfy { $0.error?.cause == "the batch stopped at f0.jpg's failure" })
        #expect(
            await session.snapshot().batchStop
                == BatchStop(file: "f0.jpg", error: "HTTP 400 bad request — bad", everyFile: false))

        await session.handle(.retryUnfinished)
        var retried: [Int] = []
        for _ in 0..<3 {
            let again = try #require(await started.next())
            retried += again.request.files.map(\.id)
            again.reply(.success(TransferResponse(status: 201)))
        }
        #expect(retried == [0, 1, 2])
        #expect(await session.snapshot().batchStop == nil)
        await session.waitUntilIdle()
        #expect(await session.snapshot().files.allSatisfy { $0.phase == .done && $0.error == nil })
    }

    @Test(
        "a file in flight when the batch stops ends cancelled for the stop, whatever its own answer; its batch-mates fail",
        .timeLimit(.minutes(1)))
    func inFlightAtTheStop() async throws {
        let transport = InMemoryTransport()
        let session = UploadSession(
            items: items([10, 20, 30, 40, 50]), planner: EchoPlanner(batchSize: 2), transport: transport,
            configuration: .init(concurrency: 2, failFast: true), clock: ManualClock(), random: { 1 })
        var started = transport.started.makeAsyncIterator()
        await session.start()
        let first = try #require(await started.next())
        let second = try #require(await started.next())
        let (pair, other) = first.request.files.map(\.id) == [0, 1] ? (first, second) : (second, first)
        pair.reply(.success(TransferResponse(status: 400, body: "bad")))
        // The other request's own refusal comes after the stop cancelled it.
        other.reply(.success(TransferResponse(status: 400, body: "bad")))
        await session.waitUntilIdle()
        let files = await session.snapshot().files
        // The pair met the answer; the rest were stopped.
        #expect(files.map(\.phase) == [.failed, .failed, .cancelled, .cancelled, .cancelled])
        for file in files.dropFirst(2) {
            #expect(file.error?.cause == "the batch stopped at f0.jpg's failure", "\(String(describing: file.error))")
        }
    }

    @Test(
        "a batch-mate sent back in line after --fail-fast stopped the batch ends cancelled, not sent again",
        .timeLimit(.minutes(1)))
    func batchMateAfterTheStop() async throws {
        let transport = InMemoryTransport()
        let session = UploadSession(
            items: items([10, 20, 30, 40]), planner: EchoPlanner(batchSize: 2), transport: transport,
            configuration: .init(concurrency: 1, failFast: true), clock: ManualClock(), random: { 1 })
        var started = transport.started.makeAsyncIterator()
        await session.start()
        // f0 cannot be read: it fails alone, and its batch-mate would go back in line for a request of its own.
        try #require(await started.next()).reply(.failure(UploadError(.fileUnreadable, file: "f0.jpg")))
        await session.waitUntilIdle()
        let files = await session.snapshot().files
        #expect(files.map(\.phase) == [.failed, .cancelled, .cancelled, .cancelled])
        #expect(files.dropFirst().allSatisfy { $0.error?.cause == "the batch stopped at f0.jpg's failure" })
    }
}
