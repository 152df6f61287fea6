import Synchronization
import Testing
import UploadDomain

/// A planner whose read-back answers what the test scripted per file, and counts how often it was asked.
final class ScriptedVerifyPlanner: RequestPlanner {
    let echo = EchoPlanner()
    let verdicts: [String: Verification]
    let asked = Mutex(0)
    var batchSize: Int { 1 }

    init(_ verdicts: [String: Verification]) {
        self.verdicts = verdicts
    }

    func destination(of item: UploadItem) -> String { echo.destination(of: item) }
    func curlCommand(for item: UploadItem) -> String { echo.curlCommand(for: item) }
    func request(for items: [UploadItem]) async throws(UploadError) -> TransferRequest {
        try await echo.request(for: items)
    }
    func results(for items: [UploadItem], response: TransferResponse) -> [UploadResult] {
        echo.results(for: items, response: response)
    }
    var verifyRefusal: String? { nil }
    func verify(_ items: [UploadItem], response: TransferResponse, via transport: any UploadTransport) async
        -> [Verification]
    {
        asked.withLock { $0 += items.count }
        return items.map { verdicts[$0.relativePath] ?? .verified("sha256:00") }
    }
}

/// A journal that keeps what it is told, for the test to read.
final class RecordingJournal: UploadJournal {
    let entries = Mutex<[JournalEntry]>([])

    func priorOutcomes(of items: [UploadItem], destinations: [String]) -> [Int: JournalEntry.PriorOutcome] { [:] }
    func record(_ entry: JournalEntry) { entries.withLock { $0.append(entry) } }
    func flush() {}
    func close(counts: PhaseCounts) {}
}

@Suite("UploadSession with --verify")
struct UploadSessionVerifyTests {
    func finish(_ session: UploadSession, _ transport: InMemoryTransport, requests: Int) async {
        var started = transport.started.makeAsyncIterator()
        for _ in 0..<requests {
            guard let request = await started.next() else { return }
            request.probe.report(sent: 10, total: 10)
            request.reply(.success(TransferResponse(status: 201, body: "ok")))
        }
    }

    @Test("a matching read-back: modeling, verifying, then done carrying the digest; counted as verified")
    func verified() async throws {
        let transport = InMemoryTransport()
        let planner = ScriptedVerifyPlanner([:])
        let session = UploadSession(
            items: items([10]), planner: planner, transport: transport,
            configuration: .init(concurrency: 1, verify: true))
        var events = session.events.makeAsyncIterator()
        await session.start()
        await finish(session, transport, requests: 1)
        let verifying = try #require(await awaitEvent(.verifying, file: 0, in: &events))
        #expect(verifying.file.phase == .verifying)
        let done = try #require(await awaitEvent(.done, file: 0, in: &events))
        #expect(done.file.result?.verified == "sha256:00")
        await session.waitUntilIdle()
        #expect(await session.snapshot().progress.counts.verified == 1)
    }

    @Test("a mismatch fails the file on its first attempt, without a retry")
    func mismatchNotRetried() async throws {
        let transport = InMemoryTransport()
        let mismatch = Verification.compare(kind: "sha256", sent: "aa", stored: "bb", file: "f0.jpg")
        let session = UploadSession(
            items: items([10]), planner: ScriptedVerifyPlanner(["f0.jpg": mismatch]), transport: transport,
            configuration: .init(concurrency: 1, verify: true))
        var events = session.events.makeAsyncIterator()
        await session.start()
        await finish(session, transport, requests: 1)
        let failed = try #require(await awaitEvent(.failed, file: 0, in: &events))
        #expect(failed.file.error?.code == .verifyMismatch)
        #expect(failed.file.attempt == 1)
        await session.waitUntilIdle()
        let counts = await session.snapshot().progress.counts
        #expect(counts.failed == 1 && counts.verified == 0 && counts.done == 0)
    }

    @Test("a mismatch renews the file's key: r sends it under a fresh one, and the journal's failure records it")
    func mismatchRenewsKey() async throws {
        let transport = InMemoryTransport()
        let mismatch = Verification.compare(kind: "sha256", sent: "aa", stored: "bb", file: "f0.jpg")
        let journal = RecordingJournal()
        let session = UploadSession(
            items: items([10, 10]), planner: ScriptedVerifyPlanner(["f0.jpg": mismatch]), transport: transport,
            configuration: .init(concurrency: 1, verify: true), journal: journal)
        var started = transport.started.makeAsyncIterator()
        await session.start()
        for _ in 0..<2 {
            let request = try #require(await started.next())
            #expect(request.request.files.allSatisfy { $0.keyRenewal == 0 })
            request.reply(.success(TransferResponse(status: 201, body: "ok")))
        }
        await session.waitUntilIdle()
        let failed = try #require(journal.entries.withLock { $0 }.last { $0.item.id == 0 })
        guard case .failed(let error) = failed.outcome else {
            Issue.record("recorded \(failed.outcome)")
            return
        }
        #expect(error.code == .verifyMismatch)
        #expect(failed.item.keyRenewal == 1, "the rerun reads it from here")
        // The file verified is left as it was: its key repeats.
        #expect(journal.entries.withLock { $0 }.filter { $0.item.id == 1 }.allSatisfy { $0.item.keyRenewal == 0 })

        await session.handle(.retry(fileID: 0))
        let again = try #require(await started.next())
        #expect(again.request.files.map(\.keyRenewal) == [1])
        again.reply(.success(TransferResponse(status: 201, body: "ok")))
        await session.waitUntilIdle()
    }

    @Test("a server that cannot report what it stored fails that file and cancels the rest")
    func unavailableStops() async throws {
        let transport = InMemoryTransport()
        let planner = ScriptedVerifyPlanner([
            "f0.jpg": .unavailable("the server's answer names no sha256", file: "f0.jpg")
        ])
        let session = UploadSession(
            items: items([10, 10, 10]), planner: planner, transport: transport,
            configuration: .init(concurrency: 1, verify: true))
        await session.start()
        await finish(session, transport, requests: 1)
        await session.waitUntilIdle()
        let snapshot = await session.snapshot()
        #expect(snapshot.files.map(\.phase) == [.failed, .cancelled, .cancelled])
        #expect(snapshot.files[0].error?.description == "f0.jpg: cannot verify: the server's answer names no sha256")
    }

    @Test("without --verify nothing is read back")
    func offByDefault() async throws {
        let transport = InMemoryTransport()
        let planner = ScriptedVerifyPlanner([:])
        let session = UploadSession(items: items([10]), planner: planner, transport: transport)
        await session.start()
        await finish(session, transport, requests: 1)
        await session.waitUntilIdle()
        let snapshot = await session.snapshot()
        #expect(snapshot.files[0].phase == .done)
        #expect(snapshot.files[0].result?.verified == nil)
        #expect(planner.asked.withLock { $0 } == 0)
    }
}
