import Foundation
import Synchronization
import Testing
import UploadDomain

/// A transport the test drives by hand: each request waits until the test answers it.
final class InMemoryTransport: UploadTransport {
    struct Pending: Sendable {
        let request: TransferRequest
        let probe: TransferProbe
        let reply: @Sendable (Result<TransferResponse, UploadError>) -> Void
    }

    let started: AsyncStream<Pending>
    private let sink: AsyncStream<Pending>.Continuation
    let pausedCalls = Mutex<[Bool]>([])
    let bandwidthCalls = Mutex<[Int64?]>([])
    let taskExecutor: (any TaskExecutor)?

    init(taskExecutor: (any TaskExecutor)? = nil) {
        (started, sink) = AsyncStream.makeStream()
        self.taskExecutor = taskExecutor
    }

    func send(_ request: TransferRequest, probe: TransferProbe) async throws -> TransferResponse {
        let box = Mutex<CheckedContinuation<TransferResponse, any Error>?>(nil)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // Cancelled before the continuation was kept: `onCancel` found nothing to resume.
                let cancelled = box.withLock { kept in
                    if Task.isCancelled { return true }
                    kept = continuation
                    return false
                }
                if cancelled { return continuation.resume(throwing: UploadError(.cancelled)) }
                sink.yield(
                    Pending(request: request, probe: probe) { result in
                        box.withLock { $0.take() }?.resume(with: result.mapError { $0 as any Error })
                    })
            }
        } onCancel: {
            box.withLock { $0.take() }?.resume(throwing: UploadError(.cancelled))
        }
    }

    func setPaused(_ paused: Bool, probe: TransferProbe) {
        pausedCalls.withLock { $0.append(paused) }
    }

    func setBandwidthLimit(_ bytesPerSecond: Int64?) {
        bandwidthCalls.withLock { $0.append(bytesPerSecond) }
    }
}

extension AsyncStream<InMemoryTransport.Pending>.Iterator {
    /// The next `count` requests, by their first file's ID: requests started together reach the transport from
    /// tasks of their own, in either order.
    mutating func next(_ count: Int) async throws -> [InMemoryTransport.Pending] {
        var requests: [InMemoryTransport.Pending] = []
        for _ in 0..<count { requests.append(try #require(await next())) }
        return requests.sorted { ($0.request.files.first?.id ?? 0) < ($1.request.files.first?.id ?? 0) }
    }
}

/// Counts the jobs it is given and runs them on the global executor.
final class CountingExecutor: TaskExecutor {
    let jobs = Atomic<Int>(0)

    func enqueue(_ job: consuming ExecutorJob) {
        jobs.add(1, ordering: .relaxed)
        globalConcurrentExecutor.enqueue(job)
    }
}

/// A clock that moves only when the test says so.
final class ManualClock: UploadClock {
    private struct State {
        var now: Duration = .zero
        var sleepers: [(deadline: Duration, continuation: CheckedContinuation<Void, Never>)] = []
        var sleeperWaiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    var now: Duration { state.withLock { $0.now } }

    func sleep(for duration: Duration) async throws {
        await withCheckedContinuation { continuation in
            let waiters = state.withLock { state in
                state.sleepers.append((state.now + duration, continuation))
                defer { state.sleeperWaiters = [] }
                return state.sleeperWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Returns once `count` tasks (at least) are sleeping on this clock.
    func waitForSleeper(count: Int = 1) async {
        // Each new sleeper wakes the waiters, which look again.
        while state.withLock({ $0.sleepers.count < count }) {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    if state.sleepers.count < count { state.sleeperWaiters.append(continuation) }
                    return state.sleepers.count >= count
                }
                if ready { continuation.resume() }
            }
        }
    }

    /// When the tasks sleeping now wake.
    var deadlines: [Duration] { state.withLock { $0.sleepers.map(\.deadline) } }

    func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.now += duration
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.map(\.continuation)
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for continuation in due { continuation.resume() }
    }
}

/// Builds plain requests; results are the body for each file.
struct EchoPlanner: RequestPlanner {
    var batchSize = 1
    func destination(of item: UploadItem) -> String { "mem://\(item.relativePath)" }
    func curlCommand(for item: UploadItem) -> String { "curl mem://\(item.relativePath)" }
    func request(for items: [UploadItem]) async throws(UploadError) -> TransferRequest {
        TransferRequest(
            method: .post, url: "mem://", headers: [], bearerToken: nil,
            body: .multipart(fields: [], fileField: "file", files: items))
    }
    func results(for items: [UploadItem], response: TransferResponse) -> [UploadResult] {
        items.map {
            UploadResult(httpStatus: response.status, body: response.body, isJSON: false, location: $0.relativePath)
        }
    }
}

func items(_ sizes: [Int64]) -> [UploadItem] {
    sizes.enumerated().map { index, size in
        UploadItem(
            id: index, path: "/data/f\(index).jpg", relativePath: "f\(index).jpg", size: size, modified: 0,
            contentType: "image/jpeg")
    }
}

/// A preparer the test drives by hand: each preparation waits until the test answers it.
final class InMemoryPreparer: ImagePreparing {
    struct Pending: Sendable {
        let item: UploadItem
        let options: ImageOptions
        let encoding: ImageEncoding
        let reply: @Sendable (Result<PreparedImage?, UploadError>) -> Void
    }

    let started: AsyncStream<Pending>
    private let sink: AsyncStream<Pending>.Continuation
    let discarded = Mutex<[String]>([])

    init() {
        (started, sink) = AsyncStream.makeStream()
    }

    func prepare(
        _ item: UploadItem, options: ImageOptions, encoding: ImageEncoding
    ) async throws(UploadError) -> PreparedImage? {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<PreparedImage?, UploadError>, Never>) in
            sink.yield(Pending(item: item, options: options, encoding: encoding) { continuation.resume(returning: $0) })
        }
        return try result.get()
    }

    func discard(_ prepared: PreparedImage) {
        discarded.withLock { $0.append(prepared.path) }
    }

    /// A prepared copy of `item`: `/tmp/prep/<name>.jpg`, `size` bytes, 1600×1200.
    static func prepared(_ item: UploadItem, size: Int64) -> PreparedImage {
        let name = (item.relativePath as NSString).deletingPathExtension + ".jpg"
        return PreparedImage(
            path: "/tmp/prep/" + name, remoteName: name, contentType: "image/jpeg", size: size, width: 1600,
            height: 1200, modified: 1)
    }
}

/// Reads events until one of `kind` arrives for `file`.
func awaitEvent(
    _ kind: UploadEvent.Kind, file: Int, in events: inout UploadEvents.Iterator
) async -> UploadEvent? {
    while let event = await events.next() {
        if event.kind == kind, event.file.id == file { return event }
    }
    return nil
}
