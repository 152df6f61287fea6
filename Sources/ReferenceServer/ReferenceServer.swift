import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// The reference upload server: a Hummingbird 2 application that stores multipart image uploads,
/// raw `PUT` bodies and presigned-URL object uploads under a root folder, with optional bearer
/// auth and fault injection.
///
/// It is both the demo target of `uploader-tui` and the peer of the client's integration tests,
/// which start it in-process on port 0:
///
/// ```swift
/// let server = ReferenceServer(configuration: .init(root: tempDir))
/// let port = try await server.start()
/// defer { Task { await server.stop() } }
/// ```
public actor ReferenceServer {
    private enum State {
        case idle
        case starting
        case running(port: Int, group: ServiceGroup, task: Task<Void, any Error>)
    }

    /// The configuration the server was created with.
    public nonisolated let configuration: ReferenceServerConfiguration
    private let recorder = StatisticsRecorder()
    private let faults: FaultInjector
    private let manifests = ManifestStore()
    private let objects = ObjectStore()
    private let signer: TicketSigner
    private let tokens: TokenAuthority
    private let idempotency: IdempotencyStore
    private let requestLogger: Logger
    private let frameworkLogger: Logger
    private var state = State.idle

    /// Creates a stopped server; nothing is bound until ``start()`` or ``run()``.
    public init(configuration: ReferenceServerConfiguration) {
        self.configuration = configuration
        self.faults = FaultInjector(configuration: configuration)
        self.signer = TicketSigner(secret: configuration.ticketSecret)
        self.tokens = TokenAuthority(
            staticToken: configuration.token, ttl: configuration.tokenTTL, now: configuration.now)
        self.idempotency = IdempotencyStore(
            timeToLive: configuration.idempotencyTTL, capacity: configuration.idempotencyCapacity,
            now: configuration.now)
        var requestLogger = Logger(label: "uploader-server") { StreamLogHandler.standardError(label: $0) }
        requestLogger.logLevel = configuration.logRequests ? .info : .critical
        self.requestLogger = requestLogger
        // Hummingbird's own chatter (startup banners, per-connection traces) is not useful here.
        var frameworkLogger = Logger(label: "uploader-server.hummingbird") { StreamLogHandler.standardError(label: $0) }
        frameworkLogger.logLevel = .warning
        self.frameworkLogger = frameworkLogger
    }

    /// Counters since the server was created.
    public var statistics: ServerStatistics { recorder.snapshot }

    /// Makes every bearer token issued so far, and the configured static token, expired from now on
    /// (401 `invalid_token` on the protected routes; `POST /auth/refresh` still trades them for a
    /// new one). Tokens issued after the call are valid. For tests that need a token to expire at a
    /// chosen moment, with or without `tokenTTL`.
    public nonisolated func expireTokens() {
        tokens.expireAll()
    }

    /// Starts listening; returns once the port is bound.
    /// - Returns: the bound port (useful with `port: 0`). Calling it again while running returns
    ///   the same port.
    /// - Throws: ``ReferenceServerError`` with code `startFailed` when the address cannot be bound.
    public func start() async throws -> Int {
        try await launch(signals: [])
    }

    /// Stops accepting connections, lets in-flight requests finish (up to a few seconds) and
    /// returns once the listening socket is closed. Does nothing when not running.
    public func stop() async {
        guard case .running(_, let group, let task) = state else { return }
        state = .idle
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        await manifests.flush()
    }

    /// Runs until cancelled or until SIGINT/SIGTERM, then shuts down gracefully.
    public func run() async throws {
        try await run(onListening: { _ in })
    }

    /// Runs until cancelled or until SIGINT/SIGTERM, calling `onListening` with the bound port once
    /// the socket is listening (the executable prints it and writes its port file there).
    ///
    /// Signals are only handled when the server is started by this call, not by an earlier
    /// ``start()``, so in-process tests never have their signal handling replaced.
    public func run(onListening: @Sendable (Int) async throws -> Void) async throws {
        let port = try await launch(signals: [.sigterm, .sigint])
        guard case .running(_, _, let task) = state else { return }
        do {
            try await onListening(port)
        } catch {
            await stop()
            throw error
        }
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            Task { await self.stop() }
        }
        if case .running(_, _, let current) = state, current == task {
            state = .idle
        }
        await manifests.flush()  // SIGTERM/SIGINT end the binary here
    }

    /// Binds the socket and runs the application in a child task of its own service group.
    private func launch(signals: [UnixSignal]) async throws -> Int {
        switch state {
        case .running(let port, _, _):
            return port
        case .starting:
            throw ReferenceServerError(.startFailed, "server is already starting")
        case .idle:
            break
        }
        state = .starting
        let root: String
        do {
            try FileManager.default.createDirectory(atPath: configuration.root, withIntermediateDirectories: true)
            root = StoragePath.resolved(configuration.root)
        } catch {
            state = .idle
            throw ReferenceServerError(.startFailed, "cannot create root \(configuration.root)")
        }

        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: makeRouter(root: root),
            server: .http1(
                configuration: .init(
                    additionalChannelHandlers: [
                        ContinueExpectationHandler(), HangUpObserver(), UpgradeRefusalHandler(),
                    ])),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port),
                backlog: configuration.backlog,
                reuseAddress: true),
            onServerRunning: { channel in
                portContinuation.yield(channel.localAddress?.port ?? 0)
                portContinuation.finish()
            },
            logger: frameworkLogger)
        var groupConfiguration = ServiceGroupConfiguration(
            services: [app], gracefulShutdownSignals: signals, logger: frameworkLogger)
        // Keep-alive clients could otherwise hold a graceful shutdown open indefinitely.
        groupConfiguration.maximumGracefulShutdownDuration = configuration.shutdownLimit
        let group = ServiceGroup(configuration: groupConfiguration)
        let task = Task {
            // Whatever happens, unblock the port wait below (e.g. bind failed).
            defer { portContinuation.finish() }
            try await group.run()
        }

        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            state = .idle
            let reason: String
            do {
                try await task.value
                reason = "server stopped before listening"
            } catch {
                reason = "\(error)"
            }
            throw ReferenceServerError(
                .startFailed, "cannot listen on \(configuration.host):\(configuration.port): \(reason)")
        }
        state = .running(port: port, group: group, task: task)
        return port
    }

    private func makeRouter(root: String) -> Router<UploadRequestContext> {
        let router = Router(context: UploadRequestContext.self)
        router.add(middleware: RequestLogMiddleware(logger: requestLogger, statistics: recorder))
        if configuration.token != nil {
            router.add(middleware: BearerAuthMiddleware(authority: tokens, statistics: recorder))
        }
        AuthRoutes(authority: tokens, statistics: recorder).register(on: router)
        UploadRoutes(
            root: root, modelingDelay: configuration.modelingDelay, statistics: recorder,
            faults: faults, manifests: manifests, idempotency: idempotency
        ).register(on: router)
        ObjectRoutes(
            root: root, ticketTTL: configuration.ticketTTL,
            presignCountMismatch: configuration.presignCountMismatch,
            presignExpiredTickets: configuration.presignExpiredTickets,
            signer: signer, store: objects, statistics: recorder, faults: faults, idempotency: idempotency
        ).register(on: router)
        return router
    }
}
