import CCurl
import Dispatch
import Glibc
import Synchronization
import UploadDomain

/// One multi handle and the thread that drives it; jobs handed to it run on that thread between transfers.
///
/// `@unchecked Sendable`: `inbox` is locked and `curl_multi_wakeup` is thread-safe; `multi` otherwise
/// and `active` are touched only by the thread running `run()`, which creates `multi` before it first polls (other
/// threads wake it only while it polls, which they learn under the lock).
final class CurlLoop: @unchecked Sendable {
    enum Command {
        case add(CurlTransfer)
        case cancel(CurlTransfer)
        case pause(ObjectIdentifier, Bool)
        /// The bandwidth cap changed: transfers waiting for it may go on sooner.
        case bandwidthChanged
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
    /// `--max-host-connections`; 0 for none.
    private let maxHostConnections: Int
    /// The engine's `--bwlimit`, shared with the other loops.
    private let limiter: BandwidthLimiter
    private let inbox = Mutex(Inbox())
    /// Signalled once `run()` has cleaned up and returned.
    let finished = DispatchSemaphore(value: 0)
    private var active: [ObjectIdentifier: CurlTransfer] = [:]
    /// Easy handles of transfers that completed, reset for the next ones: a new handle per request allocated and
    /// freed libcurl's state and its buffers each time (issue 20, docs/engine.md).
    private var idleHandles: [UnsafeMutableRawPointer] = []
    /// Handles reused so far (for tests).
    let reusedHandles = Atomic<Int>(0)
    /// The largest read of the last transfer to finish (for tests).
    let lastLargestRead = Atomic<Int>(0)
    /// Where a transfer notes whether its origin multiplexes, for the engine to keep such an origin to one loop.
    private let multiplexed: MultiplexedOrigins
    /// Transfers posted and not yet finished, read by other threads to pick the least busy loop.
    let load = Atomic<Int>(0)
    /// The thread running `run()`, once it runs.
    private let thread = Atomic<UInt>(0)

    init(
        maxCachedConnections: Int, maxHostConnections: Int, limiter: BandwidthLimiter, multiplexed: MultiplexedOrigins
    ) {
        self.multiplexed = multiplexed
        self.maxCachedConnections = maxCachedConnections
        self.maxHostConnections = maxHostConnections
        self.limiter = limiter
    }

    /// Queues a command for the curl thread and wakes it; callable from any thread. After shutdown a request is
    /// refused at once: its task must not wait on a loop that has ended.
    func post(_ command: Command) {
        if !deliver({ $0.commands.append(command) }) { refuse(command) }
    }

    /// Runs `job` on this loop's thread, or on the global executor once the loop has stopped.
    func enqueue(_ job: UnownedJob) {
        if !deliver({ $0.jobs.append(job) }) { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }

    /// Adds to the inbox and wakes the loop if it sleeps; false, adding nothing, once the loop has stopped.
    private func deliver(_ add: (inout Inbox) -> Void) -> Bool {
        let (wake, stopped) = inbox.withLock { inbox in
            if !inbox.stopped { add(&inbox) }
            return (inbox.polling, inbox.stopped)
        }
        if wake, !stopped { ccurl_multi_wakeup(multi) }
        return !stopped
    }

    /// True on the thread running `run()`.
    var isCurrentThread: Bool { thread.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Runs the loop until `.shutdown`; `executor` is what the jobs run as.
    func run(as executor: UnownedTaskExecutor) {
        thread.store(UInt(pthread_self()), ordering: .releasing)
        multi = ccurl_multi_init()
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, maxCachedConnections)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        if maxHostConnections > 0 {
            _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxHostConnections)
        }
        var stillRunning: Int32 = 0
        var bodyBytes: Int64 = 0
        while true {
            runJobs(as: executor)
            let pending = inbox.withLock { Self.take(&$0.commands) }
            for (index, command) in pending.enumerated() {
                if case .shutdown = command {
                    stop(refusing: pending[(index + 1)...])
                    return
                }
                handle(command)
            }
            resumeLongestWaiting()
            ccurl_multi_perform(multi, &stillRunning)
            var left: Int32 = 0
            while let message = ccurl_multi_info_read(multi, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                var raw: UnsafeMutableRawPointer?
                _ = ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &raw)
                guard let raw else { continue }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(raw).takeUnretainedValue()
                let code = message.pointee.data.result
                if code == CURLE_OK { multiplexed.record(transfer.request.url, multiplexed: transfer.multiplexed) }
                // A file that changed under the transfer fails, whatever the server said (issue 5: torn files).
                let outcome: Result<TransferResponse, UploadError> =
                    if let changed = transfer.changedFile() {
                        .failure(changed)
                    } else if code == CURLE_OK, let early = transfer.answeredEarly(status: transfer.status) {
                        .failure(early)
                    } else if code == CURLE_OK {
                        .success(transfer.response())
                    } else {
                        .failure(transfer.error(for: code))
                    }
                finish(transfer, with: outcome, keepingHandle: code == CURLE_OK)
            }
            // A body that moved is sent on at once: libcurl sends one buffer per transfer and call, and checks the
            // socket itself first, so a poll before each buffer only repeats that check (a third of the
            // system calls of a large upload, whose sending thread is the bottleneck on a fast link).
            let sent = active.values.reduce(0) { $0 + $1.bodyBytesRead }
            if sent != bodyBytes {
                bodyBytes = sent
                continue
            }
            // Sleep only with nothing to run: a resumed task's job must not wait for the next socket event.
            let idle = inbox.withLock { inbox in
                inbox.polling = inbox.jobs.isEmpty && inbox.commands.isEmpty
                return inbox.polling
            }
            guard idle else { continue }
            ccurl_multi_poll(multi, nil, 0, pollTimeout(), nil)
            inbox.withLock { $0.polling = false }
        }
    }

    /// Unpauses the transfer that has waited longest for the bandwidth cap, once the bucket has tokens: one a
    /// round, so they take turns instead of all waking to find one chunk's worth.
    private func resumeLongestWaiting() {
        var longest: CurlTransfer?
        for transfer in active.values {
            guard let since = transfer.throttle?.waitingSince, !transfer.isPaused else { continue }
            if let best = longest?.throttle?.waitingSince, best <= since { continue }
            longest = transfer
        }
        guard let longest, limiter.delay() == 0 else { return }
        longest.resumeFromThrottle()
    }

    /// Milliseconds `curl_multi_poll` may sleep (a socket event or a wakeup ends it sooner): until the bucket has
    /// tokens while a transfer waits for them, at most `inFlightPoll` while transfers are in flight, else a second.
    private func pollTimeout() -> Int32 {
        guard !active.isEmpty else { return 1000 }
        let waiting = active.values.contains { $0.throttle?.isWaiting == true && !$0.isPaused }
        guard waiting else { return Self.inFlightPoll }
        return Int32(min(UInt64(Self.inFlightPoll), (limiter.delay() + 999_999) / 1_000_000))
    }

    /// libcurl 7.88 at times takes an HTTP/2 stream's answer off the connection while serving another stream and
    /// sets no timer to finish it: the transfer then waits for the next poll to time out. curl's tool waits a
    /// second there (1 run in 80 of comparison 9, as did this loop with a second); with transfers in flight the
    /// loop looks again after this many milliseconds.
    static let inFlightPoll: Int32 = 20

    /// Jobs first in a round: they are tasks resumed by the last one, and they post the next requests. Jobs those
    /// enqueue run too, up to `jobsPerRound`: the headless reporter goes back through this queue at least once
    /// per event (a stream element, a hop to its actor), and one step per round of transfers left it hundreds of
    /// events behind.
    private func runJobs(as executor: UnownedTaskExecutor) {
        var ran = 0
        while ran < Self.jobsPerRound {
            let jobs = inbox.withLock { Self.take(&$0.jobs) }
            if jobs.isEmpty { return }
            for job in jobs { job.runSynchronously(on: executor) }
            ran += jobs.count
        }
    }

    /// Empties a queue of the inbox. An empty queue is left alone: emptying a buffer shared with the copy returned
    /// would allocate a new one, twice per round of a loop that turns once per buffer sent.
    private static func take<Element>(_ queue: inout [Element]) -> [Element] {
        if queue.isEmpty { return [] }
        defer { queue.removeAll(keepingCapacity: true) }
        return queue
    }

    /// The most jobs a round runs before libcurl gets the thread again.
    static let jobsPerRound = 256

    /// Reset handles a loop keeps: enough for the requests that start as others end.
    static let idleHandlesKept = 8

    /// Fails what is in flight, hands leftover jobs to the global executor and frees the multi handle.
    /// `unhandled`: commands posted after the shutdown, which are refused like those still in the inbox.
    private func stop(refusing unhandled: ArraySlice<Command>) {
        for transfer in active.values { finish(transfer, with: .failure(UploadError(.cancelled))) }
        let (jobs, commands) = inbox.withLock { inbox in
            inbox.stopped = true
            defer {
                inbox.jobs.removeAll()
                inbox.commands.removeAll()
            }
            return (inbox.jobs, inbox.commands)
        }
        for command in unhandled + commands { refuse(command) }
        for job in jobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
        for handle in idleHandles { ccurl_easy_cleanup(handle) }
        idleHandles.removeAll()
        ccurl_multi_cleanup(multi)
        finished.signal()
    }

    /// Fails a request the stopped loop will never run.
    private func refuse(_ command: Command) {
        guard case .add(let transfer) = command else { return }
        fail(transfer, with: UploadError(.cancelled))
    }

    /// Ends a request that never reached libcurl.
    private func fail(_ transfer: CurlTransfer, with error: UploadError) {
        load.subtract(1, ordering: .relaxed)
        transfer.continuation?.resume(throwing: error)
        transfer.continuation = nil
    }

    private func handle(_ command: Command) {
        switch command {
        case .add(let transfer):
            if transfer.cancelRequested.load(ordering: .relaxed) {
                fail(transfer, with: UploadError(.cancelled))
                return
            }
            let handle = idleHandles.popLast()
            if handle != nil { reusedHandles.add(1, ordering: .relaxed) }
            do {
                try transfer.prepare(reusing: handle)
            } catch {
                fail(transfer, with: error)
                transfer.release()
                return
            }
            active[ObjectIdentifier(transfer.probe)] = transfer
            ccurl_multi_add_handle(multi, transfer.easy)
        case .cancel(let transfer):
            // Removing the handle stops it at once; no DONE message follows, so finish it here.
            guard active[ObjectIdentifier(transfer.probe)] === transfer else { return }
            finish(transfer, with: .failure(UploadError(.cancelled)))
        case .pause(let probe, let paused):
            guard let transfer = active[probe], let easy = transfer.easy else { return }
            transfer.setPaused(paused)
            ccurl_easy_pause(easy, paused ? CURLPAUSE_RECV | CURLPAUSE_SEND : 0)
        case .bandwidthChanged, .shutdown:
            break
        }
    }

    /// Ends a transfer. `keepingHandle`: it completed, so its easy handle may serve the next one (a cancelled or
    /// failed one's is freed: no state of an aborted transfer is carried over).
    private func finish(
        _ transfer: CurlTransfer, with outcome: Result<TransferResponse, UploadError>, keepingHandle: Bool = false
    ) {
        load.subtract(1, ordering: .relaxed)
        lastLargestRead.store(transfer.largestRead, ordering: .relaxed)
        active[ObjectIdentifier(transfer.probe)] = nil
        if let easy = transfer.easy { ccurl_multi_remove_handle(multi, easy) }
        if keepingHandle, idleHandles.count < Self.idleHandlesKept, let handle = transfer.releaseForReuse() {
            idleHandles.append(handle)
        } else {
            transfer.release()
        }
        transfer.continuation?.resume(with: outcome.mapError { $0 as any Error })
        transfer.continuation = nil
    }
}
