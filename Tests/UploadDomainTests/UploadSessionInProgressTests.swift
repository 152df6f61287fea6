import Testing
import UploadDomain

/// A rerun right after an interruption meets the server still processing the first request under the file's
/// `Idempotency-Key`: 409 with `Retry-After`, waited out without spending the file's retries, for a bounded time.
@Suite("UploadSession and a key still in progress")
struct UploadSessionInProgressTests {
    let busy = TransferResponse(
        status: 409, headers: ["retry-after": "1"],
        body: "{\"error\":\"a request with this Idempotency-Key is in progress\"}")

    func scripted(patience: Duration?) -> (UploadSession, InMemoryTransport, ManualClock) {
        let transport = InMemoryTransport()
        let clock = ManualClock()
        let session = UploadSession(
            items: items([10]), planner: EchoPlanner(), transport: transport,
            configuration: .init(
                concurrency: 1, retryPolicy: RetryPolicy(maxRetries: 2), inProgressPatience: patience),
            clock: clock, random: { 1 })
        return (session, transport, clock)
    }

    /// The file's next retry, failure or end.
    func outcome(_ events: inout UploadEvents.Iterator) async -> UploadEvent? {
        while let event = await events.next() {
            if [.retrying, .failed, .done].contains(event.kind) { return event }
        }
        return nil
    }

    @Test("409 in progress is waited out past --retries; the file is done once the server has finished the first")
    func waitedOut() async throws {
        let (session, transport, clock) = scripted(patience: .seconds(30))
        var events = session.events.makeAsyncIterator()
        var started = transport.started.makeAsyncIterator()
        await session.start()
        for _ in 0..<6 {
            try #require(await started.next()).reply(.success(busy))
            let retrying = try #require(await outcome(&events))
            try #require(retrying.kind == .retrying, "\(retrying.file.error?.description ?? "")")
            #expect(retrying.retryDelay == .seconds(1))
            await clock.waitForSleeper()
            clock.advance(by: .seconds(1))
        }
        try #require(await started.next()).reply(.success(TransferResponse(status: 201, body: "ok")))
        #expect(try #require(await outcome(&events)).kind == .done)
        await session.waitUntilIdle()
    }

    @Test("a server still at it after the patience fails the file with one line saying so")
    func patienceRunsOut() async throws {
        let (session, transport, clock) = scripted(patience: .seconds(5))
        var events = session.events.makeAsyncIterator()
        var started = transport.started.makeAsyncIterator()
        await session.start()
        var answers = 0
        while true {
            try #require(await started.next()).reply(.success(busy))
            answers += 1
            let event = try #require(await outcome(&events))
            if event.kind == .failed {
                let line = event.file.error?.description ?? ""
                #expect(
                    line.contains(
                        "the server was still processing an earlier request with this Idempotency-Key after 5 s "
                            + "(--response-timeout): HTTP 409"), "\(line)")
                break
            }
            await clock.waitForSleeper()
            clock.advance(by: .seconds(1))
        }
        #expect(answers == 6)
        #expect(clock.now == .seconds(5))
        await session.waitUntilIdle()
    }
}
