import CCurl
import Foundation
import Synchronization
import UploadDomain

/// The libcurl transport: a few threads, each owning a `curl_multi` handle and the easy handles on it.
///
/// Other threads post commands and wake a loop with `curl_multi_wakeup`; connections are reused across requests by
/// each multi handle's connection cache. Sending is mostly kernel work (on loopback, the receiver's TCP work too),
/// and one thread doing all of it was the limit of a 300-file run (issue 6): a request goes to the loop with the
/// fewest transfers, so the work spreads over the cores.
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
        /// Seconds a transfer may send nothing, or an answer that has begun receive nothing, before it is aborted
        /// as timed out (0: never).
        public var stallTimeout: Double
        /// Seconds after the last byte sent for the server's answer to begin (0: as long as it takes).
        public var responseTimeout: Double
        /// Threads that run transfers, each with its own multi handle.
        public var threads: Int
        /// CA certificates trusted instead of libcurl's default (`--cacert`, `--capath` or their variables).
        public var trust: TLSTrust
        /// A PEM client certificate for mutual TLS (`--cert`).
        public var clientCertificate: String?
        /// Its PEM private key (`--key`); nil when the key is in the certificate's file.
        public var clientKey: String?
        /// `--proxy`: nil leaves libcurl to read `http_proxy`/`https_proxy`; "" turns every proxy off, as in curl.
        public var proxy: String?
        /// `--noproxy`: hosts reached directly, comma-separated (`*` for all); nil leaves `no_proxy` to libcurl.
        public var noProxy: String?
        /// The credentials of the proxy (`ProxyCredentials`), redacted from every answer as a request's own are.
        public var proxyCredentials: [String] = []
        /// `--http1.1` / `--http2`.
        public var httpVersion: HTTPVersion
        /// `--max-host-connections`: connections to one host at most; 0 for no cap.
        public var maxHostConnections: Int

        /// Creates options.
        public init(
            insecure: Bool = false, connectTimeoutMilliseconds: Int = 15_000,
            userAgent: String = "uploader-tui/" + UploaderVersion.current,
            maxCachedConnections: Int = 64, maxSendSpeed: Int = 0, stallTimeout: Double = 30,
            responseTimeout: Double = 300,
            threads: Int = CurlEngine.defaultThreads, trust: TLSTrust = TLSTrust(), clientCertificate: String? = nil,
            clientKey: String? = nil, proxy: String? = nil, noProxy: String? = nil,
            httpVersion: HTTPVersion = .automatic, maxHostConnections: Int = 0
        ) {
            self.httpVersion = httpVersion
            self.maxHostConnections = maxHostConnections
            self.threads = max(1, threads)
            self.trust = trust
            self.clientCertificate = clientCertificate
            self.clientKey = clientKey
            self.proxy = proxy
            self.noProxy = noProxy
            self.maxSendSpeed = maxSendSpeed
            self.stallTimeout = stallTimeout
            self.responseTimeout = responseTimeout
            self.insecure = insecure
            self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
            self.userAgent = userAgent
            self.maxCachedConnections = maxCachedConnections
        }
    }

    /// Loads libcurl (the first call does; calls from other threads meanwhile wait for it).
    ///
    /// It is loaded at run time, not by the dynamic loader before `main`, so that loading it and its libraries
    /// can overlap parsing and the scan on another thread (docs/engine.md).
    /// - Returns: Why it cannot be used (missing, or too old), or nil once it is ready.
    public static func libraryProblem() -> String? {
        ccurl_load_error().map { String(cString: $0) }
    }

    /// Loads libcurl, then builds and frees one multipart request without sending it: the first request of a run
    /// paid for first use (libcurl's and this module's code paged in, lazy set-up), which a thread with nothing
    /// else to do at start-up can pay instead.
    /// - Returns: Why libcurl cannot be used, as `libraryProblem()`.
    public static func warmUp() -> String? {
        if let problem = libraryProblem() { return problem }
        let request = TransferRequest(
            method: .post, url: "http://127.0.0.1/", headers: [], bearerToken: nil,
            body: .multipart(fields: [FormField(name: "a", value: "b")], fileField: "file", files: []))
        let transfer = CurlTransfer(request: request, probe: TransferProbe(), options: Options())
        try? transfer.prepare()
        transfer.release()
        return nil
    }

    /// One thread per core, up to 4: more than the cores only adds switching.
    public static let defaultThreads = min(4, max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// Origins seen to multiplex, whose requests keep to one loop.
    private let multiplexed = MultiplexedOrigins()
    private let options: Options
    /// `--bwlimit`: the cap over all transfers of all threads.
    private let limiter = BandwidthLimiter()
    private let loops: [CurlLoop]
    private let executor: CurlExecutor
    private let stopped = Atomic<Bool>(false)
    /// Set by the `shutdown()` that waits for the threads.
    private let joined = Atomic<Bool>(false)
    /// For tests: bodies are read as for HTTP/2 over TLS whatever the URL, so a plain listener sees their bytes.
    let readsAsForHTTP2OverTLS = Atomic<Bool>(false)

    /// Starts the engine's threads and returns at once; a thread's first libcurl call loads libcurl, or waits for
    /// the thread that is loading it (see `libraryProblem`).
    public init(options: Options = Options()) {
        self.options = options
        loops = (0..<options.threads).map { [limiter, multiplexed] _ in
            CurlLoop(
                maxCachedConnections: options.maxCachedConnections, maxHostConnections: options.maxHostConnections,
                limiter: limiter, multiplexed: multiplexed)
        }
        executor = CurlExecutor(loops: loops)
        for (index, loop) in loops.enumerated() {
            let thread = Thread { [loop, executor] in
                // Names the thread in top and /proc (pthread_setname_np does not import from Swift here).
                let name = index == 0 ? "uploader-curl" : "uploader-curl-\(index + 1)"
                try? name.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
                loop.run(as: executor.asUnownedTaskExecutor())
            }
            thread.start()
        }
    }

    deinit {
        shutdown()
    }

    /// Stops the threads after failing whatever is in flight with `.cancelled`, and waits for them.
    ///
    /// Waiting matters at exit: libcurl's cleanup on the curl thread racing OpenSSL's atexit cleanup on the
    /// main thread aborted about one run in fifty.
    ///
    /// Called on a curl thread itself (a task that came off an actor the thread was running), it cannot wait for
    /// that loop: it stops once the calling job returns, and no other thread is using its handles meanwhile.
    public func shutdown() {
        stop()
        guard !joined.exchange(true, ordering: .relaxed) else { return }
        for loop in loops where !loop.isCurrentThread {
            _ = loop.finished.wait(timeout: .now() + .seconds(5))
        }
    }

    /// Asks the threads to stop, as `shutdown()` does, without waiting for them: they stop meanwhile.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        for loop in loops { loop.post(.shutdown) }
    }

    public func send(_ request: TransferRequest, probe: TransferProbe) async throws -> TransferResponse {
        if stopped.load(ordering: .relaxed) { throw UploadError(.cancelled) }
        let mayMultiplex = options.httpVersion.waitsForMultiplexing(to: request.url)
        let transfer = CurlTransfer(
            request: request, probe: probe, options: options, limiter: limiter,
            mayUseHTTP2OverTLS: readsAsForHTTP2OverTLS.load(ordering: .relaxed)
                || multiplexed.mayMultiplex(request.url, untilAnswered: mayMultiplex))
        // A host's connection cap holds within one multi handle: with a cap, each host keeps to a loop of its own.
        let home =
            options.maxHostConnections > 0
            ? MultiplexedOrigins.home(of: request.url, among: loops.count)
            : multiplexed.loop(for: request.url, mayMultiplex: mayMultiplex, among: loops.count)
        let loop = home.map { loops[$0] } ?? executor.leastBusy()
        loop.load.add(1, ordering: .relaxed)
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

    /// Each loop ignores a probe it does not hold.
    public func setPaused(_ paused: Bool, probe: TransferProbe) {
        for loop in loops { loop.post(.pause(ObjectIdentifier(probe), paused)) }
    }

    /// Caps the upload rate of all transfers together (file bodies; not the small requests made of bytes, such as
    /// presign or S3 completion requests); nil removes the cap. Transfers in flight follow at once.
    public func setBandwidthLimit(_ bytesPerSecond: Int64?) {
        limiter.setRate(bytesPerSecond)
        for loop in loops { loop.post(.bandwidthChanged) }
    }

    /// Easy handles that served another request after their own (for tests).
    var reusedHandles: Int { loops.reduce(0) { $0 + $1.reusedHandles.load(ordering: .relaxed) } }

    /// The most libcurl asked a body for in one read, in the last transfer to finish on the first loop (for tests).
    var lastLargestRead: Int { loops[0].lastLargestRead.load(ordering: .relaxed) }

    /// The curl threads, as an executor: a task resumes where its transfer ended, with no other thread woken
    /// (curl's own tool runs its transfers and bookkeeping on one loop the same way).
    public var taskExecutor: (any TaskExecutor)? { executor }
}

/// Runs jobs on the curl thread that enqueues them, so a task resumed by a finished transfer stays there; jobs
/// from other threads go to the least busy loop.
private final class CurlExecutor: TaskExecutor {
    let loops: [CurlLoop]
    /// Spreads jobs that come from other threads while no transfer is posted yet (the first requests).
    private let next = Atomic<Int>(0)

    init(loops: [CurlLoop]) {
        self.loops = loops
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        (loops.first(where: \.isCurrentThread) ?? leastBusy()).enqueue(job)
    }

    /// The loop with the fewest transfers, the calling thread's own on a tie (its post needs no wakeup).
    func leastBusy() -> CurlLoop {
        guard loops.count > 1 else { return loops[0] }
        let own = loops.first(where: \.isCurrentThread)
        var best = own ?? loops[next.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
        var fewest = best.load.load(ordering: .relaxed)
        for loop in loops where loop !== best {
            let load = loop.load.load(ordering: .relaxed)
            if load < fewest {
                best = loop
                fewest = load
            }
        }
        return best
    }
}
