import Foundation
import Synchronization
import UploadDomain

#if canImport(Glibc)
    import Glibc
#endif

/// What the run process gives its socket: the batch to show and where commands go.
public struct RunHost: Sendable {
    /// The batch as it stands.
    public var snapshot: @Sendable () async -> UploadSnapshot
    /// Carries out a screen's command; called in the order the commands arrive.
    public var handle: @Sendable (UploadCommand) async -> Void
    /// A screen's Ctrl-C: the first stops gracefully, a second aborts, as signals to the run would.
    public var interrupt: @Sendable () -> Void

    /// Creates a host.
    public init(
        snapshot: @escaping @Sendable () async -> UploadSnapshot,
        handle: @escaping @Sendable (UploadCommand) async -> Void, interrupt: @escaping @Sendable () -> Void
    ) {
        self.snapshot = snapshot
        self.handle = handle
        self.interrupt = interrupt
    }
}

/// The run process's side of the socket: accepts screens of the same user, sends them snapshots (only the rows that
/// changed, at most `interval` apart) and passes their commands on.
public final class RunServer: Sendable {
    /// The pace of snapshots, as the screen's frame rate.
    public static let interval = Duration.milliseconds(33)

    public let directory: RunDirectory
    private let host: RunHost
    private let listener: Int32
    private let state: Mutex<State>
    private let commands: AsyncStream<UploadCommand>.Continuation
    private let started = ContinuousClock.now

    private struct Client {
        var connection: LineConnection
        /// Set by its hello.
        var role: ClientRole?
        var needsFull = true
        /// Said hello as a screen. One that quits stays connected (as `.control`) until the end, which it then shows
        /// with its summary: a stop it asked for (`q`, Ctrl-C) still ends before a person's eyes.
        var wasScreen = false
    }

    private struct State {
        var info: RunInfo
        var clients: [ObjectIdentifier: Client] = [:]
        var screens: Int { clients.values.count { $0.role == .screen } }
        var everAttached = false
        /// A screen was attached the last time the batch was seen idle.
        var idleSeen = false
        /// A screen saw the batch idle, or one is connected now and so sees the end.
        var endSeen: Bool { idleSeen || clients.values.contains { $0.wasScreen } }
        var lastRows: [FileSnapshot]?
        var lastFigures: WireSnapshot?
        var ended = false
        var notices: [String] = []
        /// Resumed whenever a screen comes or goes.
        var waiters: [CheckedContinuation<Void, Never>] = []
        /// Counts those changes, so a waiter that registers late still sees one it missed.
        var generation = 0
        /// The broadcaster's wait for its next snapshot; cancelled to send one at once.
        var pause: Task<Void, Never>?
        /// The last minute's goodput, kept whether or not a screen watches, for the graph of one that attaches.
        var rates = RateHistory()
        var ratesRecorded: ContinuousClock.Instant?

        mutating func recordRate(bytesSent: Int64, since start: ContinuousClock.Instant) {
            let now = ContinuousClock.now
            rates.record(bytesSent: bytesSent, at: now - start)
            ratesRecorded = now
        }
    }

    /// Listens on the run's socket in `directory`.
    /// - Throws: `RunServiceError` `.folderUnusable` when the socket cannot be made.
    public init(directory: RunDirectory, info: RunInfo, host: RunHost) throws(RunServiceError) {
        self.directory = directory
        self.host = host
        do {
            listener = try UnixSocket.listen(at: directory.socketPath(info.id))
        } catch {
            throw RunServiceError(.folderUnusable, id: info.id, detail: error.description)
        }
        state = Mutex(State(info: info))
        let (stream, continuation) = AsyncStream.makeStream(of: UploadCommand.self)
        commands = continuation
        Task { [host] in
            for await command in stream { await host.handle(command) }
        }
    }

    /// Starts accepting screens and sending snapshots.
    public func start() {
        Thread.detachNewThread { [self] in
            while let fd = UnixSocket.accept(listener) { admit(fd) }
        }
        Task { await broadcast() }
    }

    /// The graph's last minute, up to the batch's end (`bytesSent`, its last reading): bytes per second, a reading
    /// a second, oldest first.
    public func finalRates(bytesSent: Int64) -> [Double] {
        state.withLock { state in
            state.recordRate(bytesSent: bytesSent, since: started)
            return state.rates.samples
        }
    }

    /// Screens attached now.
    public var screens: Int { state.withLock { $0.screens } }
    /// Whether any screen has attached since the start.
    public var everAttached: Bool { state.withLock { $0.everAttached } }
    /// Whether a person saw the end: a screen was attached when the batch was last seen idle, or one is connected
    /// now (it gets the end, even after it asked the run to stop and left its screen, as Ctrl-C and `q` do).
    public var endSeen: Bool { state.withLock { $0.endSeen } }

    /// Returns once no screen is attached and, unless `firstScreen` is nil, one has attached or `firstScreen`
    /// has passed; or once `stop` holds, checked whenever a screen comes or goes and every `interval`.
    public func waitUntilUnwatched(
        firstScreen: ContinuousClock.Instant?, interval: Duration = .milliseconds(250), stop: () -> Bool
    ) async {
        while !stop() {
            let (unwatched, generation) = state.withLock { state in
                let unwatched =
                    state.screens == 0
                    && (firstScreen == nil || state.everAttached || ContinuousClock.now >= firstScreen!)
                return (unwatched, state.generation)
            }
            if unwatched { return }
            let timer = Task { [weak self] in
                try? await Task.sleep(for: interval)
                self?.screensChanged()
            }
            await withCheckedContinuation { continuation in
                let missed = state.withLock { state in
                    if state.generation != generation { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if missed { continuation.resume() }
            }
            timer.cancel()
        }
    }

    private func screensChanged() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Sends the next snapshot without waiting for the rest of the interval (the batch just went idle: a screen
    /// with `--exit-when-done` is waiting for that one).
    public func sendSoon() {
        state.withLock { $0.pause }?.cancel()
    }

    /// Shows `text` in the footer of every screen, now and to come.
    public func notice(_ text: String) {
        let connections = state.withLock { state in
            state.notices.append(text)
            return state.clients.values.filter { $0.role == .screen }.map(\.connection)
        }
        var line = RunLine(.notice)
        line.text = text
        for connection in connections { connection.send(line) }
    }

    /// Stops accepting: the socket is removed, so an `attach` from now on reads the record instead.
    public func stopListening() {
        unlink(directory.socketPath(state.withLock { $0.info.id }))
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// Tells every client the run ended with `exitCode`, after the batch as it ended, and closes their connections.
    public func end(_ final: UploadSnapshot, exitCode: Int32) {
        stopListening()
        let connections = state.withLock { state in
            state.ended = true
            return state.clients.values.filter { $0.role != nil }.map(\.connection)
        }
        var last = RunLine(.snapshot)
        last.snapshot = WireSnapshot(final)
        let lastData = last.encoded()
        var line = RunLine(.ended)
        line.exitCode = exitCode
        for connection in connections {
            connection.send(encoded: lastData)
            connection.send(line)
            connection.finish()
        }
        commands.finish()
        // The process exits next: the last lines must be out first.
        let deadline = DispatchTime.now() + 2
        for connection in connections { connection.waitUntilWritten(deadline: deadline) }
    }

    private func admit(_ fd: Int32) {
        // The kernel's word on who connected; the socket's mode 0600 already keeps others out, this is the second lock.
        guard UnixSocket.peerUID(fd) == getuid() else {
            var refusal = RunLine(.refused)
            refusal.text = "this run belongs to another user"
            _ = UnixSocket.write(fd, refusal.encoded())
            close(fd)
            return
        }
        let box = ConnectionBox()
        let connection = LineConnection(
            fd: fd, onLine: { [weak self] line in self?.received(line, from: box) },
            onClose: { [weak self] in self?.closed(box) })
        box.connection = connection
        // The hello goes first, with fresh figures (for `ps`); only then is the client read and sent snapshots.
        Task {
            let info = state.withLock { $0.info }.updated(from: await host.snapshot())
            state.withLock { state in
                state.info = info
                state.clients[ObjectIdentifier(box)] = Client(connection: connection)
            }
            connection.send(.runHello(info, rates: state.withLock { $0.rates.samples }))
            connection.start()
        }
    }

    private func received(_ data: Data, from box: ConnectionBox) {
        let key = ObjectIdentifier(box)
        guard let connection = box.connection else { return }
        let role = state.withLock { $0.clients[key]?.role }
        guard role != nil else {
            hello(data, key: key, connection: connection)
            return
        }
        guard let line = try? RunLine.decode(data) else { return }
        switch line.type {
        case .command:
            if let command = line.command?.domain { commands.yield(command) }
        case .interrupt:
            host.interrupt()
        case .curl:
            guard let index = line.file else { return }
            Task {
                let files = await host.snapshot().files
                var answer = RunLine(.curl)
                answer.file = index
                answer.text = files.indices.contains(index) ? files[index].curlCommand : ""
                connection.send(answer)
            }
        case .quit:
            // The screen leaves; it waits on this connection for the run's end, or for this answer when other
            // screens keep the run going.
            let others = state.withLock { state in
                state.clients[key]?.role = .control
                return state.screens
            }
            if others > 0 {
                connection.send(RunLine(.quit))
                connection.finish()
            }
            screensChanged()
        case .hello, .snapshot, .notice, .ended, .refused:
            break
        }
    }

    private func hello(_ data: Data, key: ObjectIdentifier, connection: LineConnection) {
        let version = RunLine.helloVersion(data)
        guard version == RunProtocol.version, let line = try? RunLine.decode(data), let role = line.role else {
            var refusal = RunLine(.refused)
            refusal.text =
                version.map { "protocol version \($0); this run speaks \(RunProtocol.version)" }
                ?? "not a hello of protocol version \(RunProtocol.version)"
            connection.send(refusal)
            connection.finish()
            return
        }
        let notices = state.withLock { state -> [String] in
            state.clients[key]?.role = role
            if role == .screen {
                state.everAttached = true
                state.clients[key]?.wasScreen = true
            }
            return role == .screen ? state.notices : []
        }
        if role == .screen { screensChanged() }
        if role == .screen || role == .control { sendSoon() }
        if role == .status { connection.finish() }
        for text in notices {
            var notice = RunLine(.notice)
            notice.text = text
            connection.send(notice)
        }
    }

    private func closed(_ box: ConnectionBox) {
        _ = state.withLock { $0.clients.removeValue(forKey: ObjectIdentifier(box)) }
        screensChanged()
    }

    /// Sends the rows that changed to the screens that have them all, and every row to those just attached.
    private func broadcast() async {
        while !state.withLock({ $0.ended }) {
            // A screen that just said hello, or a batch just gone idle, cuts the wait short (`sendSoon`).
            let pause = Task { _ = try? await Task.sleep(for: Self.interval) }
            state.withLock { $0.pause = pause }
            await pause.value
            let (watching, recorded) = state.withLock { state in
                (state.clients.values.contains { $0.role == .screen || $0.role == .control }, state.ratesRecorded)
            }
            guard watching else {
                state.withLock { $0.lastRows = nil }
                // Unwatched, the graph's history needs only a reading a second.
                if recorded.map({ ContinuousClock.now - $0 >= .seconds(1) }) ?? true {
                    let sent = await host.snapshot().progress.bytesSentThisRun
                    state.withLock { $0.recordRate(bytesSent: sent, since: started) }
                }
                continue
            }
            let snapshot = await host.snapshot()
            state.withLock { $0.recordRate(bytesSent: snapshot.progress.bytesSent, since: started) }
            let (fresh, current, previous, lastFigures, screens) = state.withLock { state in
                if snapshot.isIdle {
                    state.idleSeen = state.screens > 0
                } else if state.screens > 0 {
                    state.idleSeen = false
                }
                state.info = state.info.updated(from: snapshot)
                var fresh: [LineConnection] = []
                var current: [LineConnection] = []
                for (key, client) in state.clients where client.role == .screen || client.role == .control {
                    if client.needsFull {
                        fresh.append(client.connection)
                        state.clients[key]?.needsFull = false
                    } else {
                        current.append(client.connection)
                    }
                }
                defer { state.lastRows = snapshot.files }
                return (fresh, current, state.lastRows, state.lastFigures, state.screens)
            }
            if !fresh.isEmpty {
                var line = RunLine(.snapshot)
                line.snapshot = WireSnapshot(snapshot)
                line.snapshot?.screens = screens
                let data = line.encoded()
                for connection in fresh { connection.send(encoded: data) }
            }
            guard !current.isEmpty else { continue }
            let changed = previous.flatMap { WireSnapshot.changedRows(from: $0, to: snapshot.files) }
            var delta = WireSnapshot(snapshot, changed: changed)
            // A screen that comes or goes is news too: the others' `q` depends on it.
            delta.screens = screens
            // Nothing moved: no message. The rows compared, the figures too (without the rows).
            var figures = delta
            figures.rows = []
            if delta.rows.isEmpty, !delta.full, figures == lastFigures { continue }
            state.withLock { $0.lastFigures = figures }
            if changed == nil { delta.full = true }
            var line = RunLine(.snapshot)
            line.snapshot = delta
            let data = line.encoded()
            for connection in current { connection.send(encoded: data) }
        }
    }
}

/// The connection a callback belongs to, set once it exists (the callbacks are made before it).
private final class ConnectionBox: @unchecked Sendable {
    // @unchecked: `connection` is written once, before the connection is started and can call back.
    var connection: LineConnection?
}
