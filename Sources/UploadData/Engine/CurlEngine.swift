import CCurl
import Foundation
import Synchronization
import UploadDomain

/// The libcurl transport: one thread owns a `curl_multi` handle and every easy handle on it.
///
/// Other threads post commands and wake the loop with `curl_multi_wakeup`; connections are reused
/// across requests by the multi handle's connection cache.
public final class CurlEngine: UploadTransport {
    /// Engine-wide settings.
    public struct Options: Sendable {
        /// Skip TLS verification; only with the user's explicit `--insecure`.
        public var insecure: Bool
        public var connectTimeoutMilliseconds: Int
        public var userAgent: String
        /// Connections kept open for reuse.
        public var maxCachedConnections: Int
        /// Upload speed cap per transfer in bytes/s (curl's `--limit-rate`); 0 is unlimited.
        public var maxSendSpeed: Int
        /// Seconds a transfer may send nothing before it is aborted as timed out (0: never).
        public var stallTimeout: Double

        /// Creates options.
        public init(
            insecure: Bool = false, connectTimeoutMilliseconds: Int = 15_000,
            userAgent: String = "uploader-tui/" + UploaderVersion.current,
            maxCachedConnections: Int = 64, maxSendSpeed: Int = 0, stallTimeout: Double = 30
        ) {
            self.maxSendSpeed = maxSendSpeed
            self.stallTimeout = stallTimeout
            self.insecure = insecure
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.userAgent = userAgent
            self.maxCachedConnections = maxCachedConnections
        }
    }

    private let options: Options
    private let loop: CurlLoop
    private let stopped = Atomic<Bool>(false)

    /// Starts the engine's thread, which does libcurl's global init (about 1 ms of TLS set-up) on its own, so the
    /// caller goes on at once (issue 6).
    public init(options: Options = Options()) {
        self.options = options
        loop = CurlLoop(maxCachedConnections: options.maxCachedConnections)
        let thread = Thread { [loop] in
            // Names the thread in top and /proc (pthread_setname_np does not import from Swift here).
            try? "uploader-curl".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
            loop.run()
        }
        thread.start()
    }

    deinit {
        shutdown()
    }

    /// Stops the thread after failing whatever is in flight with `.cancelled`, and waits for it.
    ///
    /// Waiting matters at exit: libcurl's cleanup on the curl thread racing OpenSSL's atexit cleanup on the
    /// main thread aborted about one run in fifty.
    ///
    /// Called on the curl thread itself (a task that came off an actor the thread was running), it cannot wait for
    /// the loop: the loop stops once the calling job returns, and no other thread is using libcurl meanwhile.
    public func shutdown() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        loop.post(.shutdown)
        if loop.isCurrentThread { return }
        _ = loop.finished.wait(timeout: .now() + .seconds(5))
    }

    public func send(_ request: TransferRequest, probe: TransferProbe) async throws -> TransferResponse {
        let transfer = CurlTransfer(request: request, probe: probe, options: options)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfer.continuation = continuation
                loop.post(.add(transfer))
            }
        } onCancel: {
            transfer.cancelRequested.store(true, ordering: .relaxed)
            loop.post(.cancel(transfer))
        }
    }

    public func setPaused(_ paused: Bool, probe: TransferProbe) {
        loop.post(.pause(ObjectIdentifier(probe), paused))
    }

    /// The curl thread, as an executor: tasks that prefer it resume there when their transfer ends, with no
    /// other thread woken (curl's own tool runs its transfers and bookkeeping on one loop the same way).
    public var taskExecutor: (any TaskExecutor)? { loop }
}

/// The multi handle and the loop that drives it; also a `TaskExecutor` whose jobs run between transfers.
///
/// `@unchecked Sendable`: `inbox` is locked and `curl_multi_wakeup` is thread-safe; `multi` otherwise
/// and `active` are touched only by the thread running `run()`, which creates `multi` before it first polls (other
/// threads wake it only while it polls, which they learn under the lock).
private final class CurlLoop: TaskExecutor, @unchecked Sendable {
    enum Command {
        case add(CurlTransfer)
        case cancel(CurlTransfer)
        case pause(ObjectIdentifier, Bool)
        case shutdown
    }

    /// What other threads hand the loop.
    private struct Inbox {
        var commands: [Command] = []
        var jobs: [UnownedJob] = []
        /// True while the loop sleeps in `curl_multi_poll`: only then does a new item need a wakeup.
        var polling = false
        /// After shutdown, jobs go to the global executor: no task waits forever on a stopped loop.
        var stopped = false
    }

    private var multi: UnsafeMutableRawPointer!
    private let maxCachedConnections: Int
    private let inbox = Mutex(Inbox())
    /// Signalled once `run()` has cleaned up and returned.
    let finished = DispatchSemaphore(value: 0)
    private var active: [ObjectIdentifier: CurlTransfer] = [:]
    /// The thread running `run()`, once it runs.
    private let thread = Atomic<UInt>(0)

    /// libcurl asks for one global init before any thread uses it.
    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    init(maxCachedConnections: Int) {
        self.maxCachedConnections = maxCachedConnections
    }

    /// Queues a command for the curl thread and wakes it; callable from any thread.
    func post(_ command: Command) {
        let wake = inbox.withLock { inbox in
            inbox.commands.append(command)
            return inbox.polling
        }
        if wake { curl_multi_wakeup(multi) }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let (wake, stopped) = inbox.withLock { inbox in
            if !inbox.stopped { inbox.jobs.append(job) }
            return (inbox.polling, inbox.stopped)
        }
        if stopped {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        } else if wake {
            curl_multi_wakeup(multi)
        }
    }

    /// True on the thread running `run()`.
    var isCurrentThread: Bool { thread.load(ordering: .acquiring) == UInt(pthread_self()) }

    func run() {
        thread.store(UInt(pthread_self()), ordering: .releasing)
        Self.globalInit
        multi = curl_multi_init()
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, maxCachedConnections)
        var stillRunning: Int32 = 0
        while true {
            runJobs()
            let pending = inbox.withLock { inbox in
                defer { inbox.commands.removeAll(keepingCapacity: true) }
                return inbox.commands
            }
            for command in pending {
                if case .shutdown = command {
                    stop()
                    return
                }
                handle(command)
            }
            curl_multi_perform(multi, &stillRunning)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                var raw: UnsafeMutableRawPointer?
                _ = ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &raw)
                guard let raw else { continue }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(raw).takeUnretainedValue()
                let code = message.pointee.data.result
                // A file that changed under the transfer fails, whatever the server said (issue 5: torn files).
                let outcome: Result<TransferResponse, UploadError> =
                    if let changed = transfer.changedFile() {
                        .failure(changed)
                    } else if code == CURLE_OK {
                        .success(transfer.response())
                    } else {
                        .failure(transfer.error(for: code))
                    }
                finish(transfer, with: outcome)
            }
            // Sleep only with nothing to run: a resumed task's job must not wait for the next socket event.
            let idle = inbox.withLock { inbox in
                inbox.polling = inbox.jobs.isEmpty && inbox.commands.isEmpty
                return inbox.polling
            }
            guard idle else { continue }
            curl_multi_poll(multi, nil, 0, 1000, nil)
            inbox.withLock { $0.polling = false }
        }
    }

    /// Jobs first in a round: they are tasks resumed by the last one, and they post the next requests. Jobs those
    /// enqueue run too, up to `jobsPerRound`: the headless reporter goes back through this queue at least once
    /// per event (a stream element, a hop to its actor), and one step per round of transfers left it hundreds of
    /// events behind.
    private func runJobs() {
        var ran = 0
        while ran < Self.jobsPerRound {
            let jobs = inbox.withLock { inbox in
                defer { inbox.jobs.removeAll(keepingCapacity: true) }
                return inbox.jobs
            }
            if jobs.isEmpty { return }
            for job in jobs { job.runSynchronously(on: asUnownedTaskExecutor()) }
            ran += jobs.count
        }
    }

    /// The most jobs a round runs before libcurl gets the thread again.
    static let jobsPerRound = 256

    /// Fails what is in flight, hands leftover jobs to the global executor and frees the multi handle.
    private func stop() {
        for transfer in active.values { finish(transfer, with: .failure(UploadError(.cancelled))) }
        let jobs = inbox.withLock { inbox in
            inbox.stopped = true
            defer { inbox.jobs.removeAll() }
            return inbox.jobs
        }
        for job in jobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        curl_multi_cleanup(multi)
        finished.signal()
    }

    private func handle(_ command: Command) {
        switch command {
        case .add(let transfer):
            if transfer.cancelRequested.load(ordering: .relaxed) {
                transfer.continuation?.resume(throwing: UploadError(.cancelled))
                transfer.continuation = nil
                return
            }
            do {
                try transfer.prepare()
            } catch {
                transfer.continuation?.resume(throwing: error)
                transfer.continuation = nil
                transfer.release()
                return
            }
            active[ObjectIdentifier(transfer.probe)] = transfer
            curl_multi_add_handle(multi, transfer.easy)
        case .cancel(let transfer):
            // Removing the handle stops it at once; no DONE message follows, so finish it here.
            guard active[ObjectIdentifier(transfer.probe)] === transfer else { return }
            finish(transfer, with: .failure(UploadError(.cancelled)))
        case .pause(let probe, let paused):
            guard let transfer = active[probe], let easy = transfer.easy else { return }
            transfer.setPaused(paused)
            curl_easy_pause(easy, paused ? CURLPAUSE_RECV | CURLPAUSE_SEND : 0)
        case .shutdown:
            break
        }
    }

    private func finish(_ transfer: CurlTransfer, with outcome: Result<TransferResponse, UploadError>) {
        active[ObjectIdentifier(transfer.probe)] = nil
        if let easy = transfer.easy { curl_multi_remove_handle(multi, easy) }
        transfer.release()
        transfer.continuation?.resume(with: outcome.mapError { $0 as any Error })
        transfer.continuation = nil
    }
}
