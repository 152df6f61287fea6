import CVips
import Foundation
import Synchronization

/// A few threads that run libvips work, so the caller (a curl loop, the session) never blocks on a decoder or an
/// encoder. Started on first use; they live as long as the process.
///
/// Two at most, and libvips gives each image one thread (see the CVips shim): two files at once keep two cores busy,
/// a third would only add memory. Each job's freed memory goes back to the system when it ends.
final class VipsWorkers: Sendable {
    /// The workers of this process.
    static let shared = VipsWorkers(count: min(2, max(1, ProcessInfo.processInfo.activeProcessorCount)))

    private let count: Int
    /// Jobs not yet taken, and whether the threads are started.
    private let state = Mutex<(jobs: [@Sendable () -> Void], started: Bool)>(([], false))
    /// One signal per queued job: an idle worker sleeps here.
    private let available = DispatchSemaphore(value: 0)

    /// A pool of `count` threads.
    init(count: Int) {
        self.count = count
    }

    /// Runs `job` on a worker thread.
    func run(_ job: @escaping @Sendable () -> Void) {
        let start = state.withLock { state in
            state.jobs.append(job)
            defer { state.started = true }
            return !state.started
        }
        if start {
            for index in 0..<count {
                let thread = Thread { [self] in work() }
                thread.name = "vips-\(index)"
                thread.start()
            }
        }
        available.signal()
    }

    /// The result of `body`, computed on a worker thread.
    func result<Success: Sendable, Failure: Error>(
        of body: @escaping @Sendable () -> Result<Success, Failure>
    ) async -> Result<Success, Failure> {
        await withCheckedContinuation { continuation in
            run { continuation.resume(returning: body()) }
        }
    }

    private func work() {
        while true {
            available.wait()
            let job = state.withLock { $0.jobs.removeFirst() }
            job()
            cvips_trim()
        }
    }
}
