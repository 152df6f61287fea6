import Foundation
import Synchronization
import UploadDomain

#if canImport(Glibc)
    import Glibc
#endif

/// A screen's (or `ps`'s, or `stop`'s) connection to a run: the latest snapshot assembled from what the run sends,
/// and commands the other way.
public final class RunClient: Sendable {
    /// How the connection ended.
    public enum End: Sendable, Equatable {
        /// The run ended with this exit status.
        case ended(Int32)
        /// The run let this screen go while other screens keep it going.
        case released
        /// The connection broke without a word from the run.
        case lost
    }

    /// The run as its hello described it.
    public let info: RunInfo
    /// The batch's goodput in each of the last seconds before this connection, oldest first.
    public let recentRates: [Double]
    /// Footer notices from the run.
    public let notices: AsyncStream<String>
    private let connection: LineConnection
    private let state: Mutex<State>
    private let noticeSink: AsyncStream<String>.Continuation

    private struct State {
        var snapshot: UploadSnapshot?
        var curl: [LazyText] = []
        var curlAnswers: [Int: String] = [:]
        var end: End?
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Screens attached, this one among them, as the last snapshot said.
        var screens = 1
    }

    /// Connects to run `id` in `directory` as `role`, checks who listens and exchanges hellos.
    /// - Throws: `RunServiceError`: `.noSuchRun` without a socket, `.stale` for a socket nobody listens on (it is
    ///   removed), `.otherUser` for a socket or a run of another user, `.versionMismatch`, `.connectFailed`.
    public static func connect(id: String, in directory: RunDirectory, role: ClientRole) throws(RunServiceError)
        -> RunClient
    {
        let path = directory.socketPath(id)
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == EACCES { throw RunServiceError(.otherUser, id: id, detail: "\(path): permission denied") }
            throw RunServiceError(.noSuchRun, id: id)
        }
        guard info.st_uid == getuid() else {
            throw RunServiceError(.otherUser, id: id, detail: "its socket is owned by uid \(info.st_uid)")
        }
        // A stopped process would leave the handshake waiting for its hello until the timeout.
        if let pid = RunRecord.read(id, in: directory)?.info.pid, Self.isStopped(pid) {
            throw RunServiceError(.suspended, id: id, detail: "pid \(pid)")
        }
        let fd: Int32
        do {
            fd = try UnixSocket.connect(to: path)
        } catch {
            switch error.code {
            case ECONNREFUSED:
                // Nobody listens: the run process died without removing its socket (kill -9, a crash).
                unlink(path)
                throw RunServiceError(.stale, id: id)
            case EACCES, EPERM:
                throw RunServiceError(.otherUser, id: id, detail: "permission denied")
            default:
                throw RunServiceError(.connectFailed, id: id, detail: error.description)
            }
        }
        guard let peer = UnixSocket.peerUID(fd), peer == getuid() else {
            close(fd)
            throw RunServiceError(.otherUser, id: id, detail: "the process listening runs as another uid")
        }
        return try Handshake(fd: fd, id: id, role: role).client()
    }

    /// Whether process `pid` is stopped: state `T` (or `t`, traced) in `/proc/PID/stat`.
    public static func isStopped(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first
        return state == "T" || state == "t"
    }

    /// `connect(id:in:role:)` on a thread of its own: the handshake blocks until the run's hello, and the
    /// concurrency pool's few threads must not wait on it.
    public static func connect(id: String, in directory: RunDirectory, role: ClientRole) async throws(RunServiceError)
        -> RunClient
    {
        let result = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    returning: Result { () throws(RunServiceError) in
                        try connect(id: id, in: directory, role: role)
                    })
            }
        }
        return try result.get()
    }

    fileprivate init(info: RunInfo, recentRates: [Double], connection: LineConnection, lines: Handshake) {
        self.info = info
        self.recentRates = recentRates
        self.connection = connection
        (notices, noticeSink) = AsyncStream.makeStream(of: String.self)
        state = Mutex(State())
        lines.deliver { [weak self] line in
            self?.received(line)
        } onClose: { [weak self] in
            self?.closed()
        }
    }

    /// The batch as last received; nil before the first snapshot.
    public var latest: UploadSnapshot? { state.withLock { $0.snapshot } }

    /// How the connection ended; nil while it lasts.
    public var end: End? { state.withLock { $0.end } }

    /// The other screens attached to the run, as its last snapshot said: a screen that quits while others watch
    /// leaves the run going.
    public var otherScreens: Int { state.withLock { max(0, $0.screens - 1) } }

    /// Sends a command to the run.
    public func send(_ command: UploadCommand) {
        var line = RunLine(.command)
        line.command = WireCommand(command)
        connection.send(line)
    }

    /// Passes on a Ctrl-C.
    public func interrupt() {
        connection.send(RunLine(.interrupt))
    }

    /// Tells the run this screen leaves; `waitForEnd()` then returns its exit status, or `.released`.
    public func quit() {
        connection.send(RunLine(.quit))
    }

    /// Leaves without a word: the run goes on.
    public func detach() {
        connection.close()
    }

    /// Returns once a snapshot has arrived or the connection ended.
    public func waitForSnapshot() async {
        await wait { $0.snapshot != nil || $0.end != nil }
    }

    /// Returns once a snapshot shows the batch idle, or the connection ended.
    public func waitUntilIdle() async {
        await wait { $0.snapshot?.isIdle == true || $0.end != nil }
    }

    /// Returns how the connection ended, once it has.
    public func waitForEnd() async -> End {
        await wait { $0.end != nil }
        return end ?? .lost
    }

    private func wait(_ condition: @escaping (State) -> Bool) async {
        while true {
            let met = state.withLock { condition($0) }
            if met { return }
            await withCheckedContinuation { continuation in
                let now = state.withLock { state in
                    if condition(state) { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        }
    }

    private func received(_ data: Data) {
        guard let line = try? RunLine.decode(data) else { return }
        switch line.type {
        case .snapshot:
            guard let wire = line.snapshot else { return }
            let broken = state.withLock { state -> Bool in
                if state.curl.count != wire.fileCount {
                    state.curl = (0..<wire.fileCount).map { index in
                        LazyText { [weak self] in self.map { $0.fetchCurl(index) } ?? "" }
                    }
                }
                let curl = state.curl
                guard let snapshot = wire.applied(to: state.snapshot?.files ?? [], curl: { curl[$0] }) else {
                    return true
                }
                state.snapshot = snapshot
                if let screens = wire.screens { state.screens = screens }
                return false
            }
            if broken { connection.close() } else { wake() }
        case .notice:
            if let text = line.text { noticeSink.yield(text) }
        case .curl:
            guard let index = line.file else { return }
            state.withLock { $0.curlAnswers[index] = line.text ?? "" }
            wake()
        case .ended:
            state.withLock { $0.end = .ended(line.exitCode ?? 1) }
            wake()
        case .quit:
            state.withLock { $0.end = .released }
            wake()
        case .hello, .refused, .command, .interrupt:
            break
        }
    }

    private func closed() {
        state.withLock { state in
            if state.end == nil { state.end = .lost }
        }
        noticeSink.finish()
        wake()
    }

    private func wake() {
        let waiters = state.withLock { state in
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The `curl` command of the file at `index`, asked of the run when the screen first shows it. Runs on the
    /// screen's thread and waits for the reader thread's answer: a round trip on a local socket. nil when the run
    /// did not answer in time: asked again on the next read, not kept empty.
    private func fetchCurl(_ index: Int) -> String? {
        var line = RunLine(.curl)
        line.file = index
        connection.send(line)
        // Sub-millisecond on a local socket; the bound is for a run process that stopped answering.
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            let answer = state.withLock { state -> String?? in
                if let text = state.curlAnswers.removeValue(forKey: index) { return .some(text) }
                return state.end == nil ? nil : .some(nil)
            }
            if let answer { return answer ?? "" }
            usleep(1000)
        }
        return nil
    }
}

/// The first exchange on a new connection: the run's hello (or refusal) read before anything else is handed on.
private final class Handshake: @unchecked Sendable {
    // @unchecked: `first`, `handler` and `onClose` are guarded by `lock`.
    private let lock = NSLock()
    private let arrived = DispatchSemaphore(value: 0)
    private var first: Data??
    private var handler: (@Sendable (Data) -> Void)?
    private var onClose: (@Sendable () -> Void)?
    private var closedEarly = false
    private var pending: [Data] = []
    private let fd: Int32
    private let id: String
    private let role: ClientRole
    private var connection: LineConnection!

    init(fd: Int32, id: String, role: ClientRole) {
        self.fd = fd
        self.id = id
        self.role = role
    }

    func client() throws(RunServiceError) -> RunClient {
        connection = LineConnection(
            fd: fd, onLine: { [self] data in received(data) }, onClose: { [self] in closed() })
        connection.start()
        connection.send(.clientHello(role))
        guard arrived.wait(timeout: .now() + 10) == .success else {
            connection.close()
            throw RunServiceError(.connectFailed, id: id, detail: "no hello from the run within 10 s")
        }
        guard let data = lock.withLock({ first ?? nil }) else {
            throw RunServiceError(.connectFailed, id: id, detail: "the run closed the connection")
        }
        let version = RunLine.helloVersion(data)
        if version == nil, let refusal = try? RunLine.decode(data), refusal.type == .refused {
            connection.close()
            let reason = refusal.text ?? "refused"
            throw RunServiceError(
                reason.contains("another user") ? .otherUser : .versionMismatch, id: id, detail: reason)
        }
        guard let version else {
            connection.close()
            throw RunServiceError(.versionMismatch, id: id, detail: "not an uploader-tui run socket")
        }
        guard version == RunProtocol.version, let hello = try? RunLine.decode(data), let info = hello.run else {
            connection.close()
            throw RunServiceError(
                .versionMismatch, id: id,
                detail: "protocol version \(version); this uploader-tui speaks \(RunProtocol.version)")
        }
        return RunClient(info: info, recentRates: hello.rates ?? [], connection: connection, lines: self)
    }

    /// Hands every later line (and those that came with the hello) to `handler`, and the end to `onClose`.
    func deliver(_ handler: @escaping @Sendable (Data) -> Void, onClose: @escaping @Sendable () -> Void) {
        // Under the lock, so the lines that came with the hello go before any that come now, in order.
        let alreadyClosed = lock.withLock { () -> Bool in
            self.handler = handler
            self.onClose = onClose
            for line in pending { handler(line) }
            pending = []
            return closedEarly
        }
        if alreadyClosed { onClose() }
    }

    private func received(_ data: Data) {
        lock.withLock {
            if first == nil {
                first = .some(data)
                arrived.signal()
            } else if let handler {
                handler(data)
            } else {
                pending.append(data)
            }
        }
    }

    private func closed() {
        let target = lock.withLock { () -> (@Sendable () -> Void)? in
            if first == nil {
                first = .some(nil)
                arrived.signal()
            }
            if onClose == nil { closedEarly = true }
            return onClose
        }
        target?()
    }
}
