import Foundation
import UploadData
import UploadDomain

/// Runs a session on the real libcurl engine and collects its events.
struct SessionRun {
    let session: UploadSession
    let engine: CurlEngine
    let items: [UploadItem]

    init(
        paths: [String], planner: any RequestPlanner, concurrency: Int = 4, retries: Int = 0,
        options: CurlEngine.Options = CurlEngine.Options(), recursive: Bool = false
    ) throws {
        items = try FileScanner(recursive: recursive).scan(paths).items
        engine = CurlEngine(options: options)
        session = UploadSession(
            items: items, planner: planner, transport: engine,
            configuration: .init(concurrency: concurrency, retryPolicy: RetryPolicy(maxRetries: retries)))
    }

    /// Starts, waits for the batch to settle and returns the final snapshot and every event.
    func complete() async -> (UploadSnapshot, [UploadEvent]) {
        let collector = Task { await session.events.reduce(into: [UploadEvent]()) { $0.append($1) } }
        await session.start()
        await session.waitUntilIdle()
        await session.finishEvents()
        let events = await collector.value
        engine.shutdown()
        return (await session.snapshot(), events)
    }
}

extension MultipartPlanner {
    static func reference(_ server: ServerFixture, dataset: String = "d1", batch: Int = 1, fields: [FormField] = [])
        -> MultipartPlanner
    {
        MultipartPlanner(
            url: server.url("/datasets/\(dataset)/images"), fileField: "file", fields: fields, headers: [], token: nil,
            batchSize: batch)
    }
}
