import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import ServiceLifecycle

/// What the fault injector decided for one upload request.
enum FaultDecision: Equatable, Sendable {
    /// Handle the request normally.
    case none
    /// Drain the body, then answer with the configured failure status.
    case fail(status: Int, retryAfter: Int?)
    /// Drop the TCP connection without sending any response.
    case reset
    /// Read one body chunk, then neither read nor answer until the client closes the connection.
    case stall
}

/// Thrown after a connection was reset on purpose, so nothing tries to answer the request.
struct ConnectionResetInjected: Error {}

/// Thrown when the client closed a connection stalled on purpose; there is nobody left to answer.
struct StalledConnectionClosed: Error {}

/// Decides per request whether to inject a failure, a connection reset or a stall.
///
/// Decisions come from a seedable generator so a test (or a demo script) can replay the same
/// sequence of faults; the generator is shared by concurrent requests, hence the lock.
final class FaultInjector: Sendable {
    private let failRate: Double
    private let failStatus: Int
    private let retryAfter: Int?
    private let resetRate: Double
    private let stallRate: Double
    private let corruptRate: Double
    private let generator: NIOLockedValueBox<SplitMix64>

    init(configuration: ReferenceServerConfiguration) {
        self.failRate = configuration.failRate
        self.failStatus = configuration.failStatus
        self.retryAfter = configuration.retryAfter
        self.resetRate = configuration.resetRate
        self.stallRate = configuration.stallRate
        self.corruptRate = configuration.corruptRate
        let seed = configuration.seed ?? UInt64.random(in: .min ... .max)
        self.generator = NIOLockedValueBox(SplitMix64(seed: seed))
    }

    /// Draws the fault for the next request. Resets are checked first, then failures, then stalls,
    /// so the rates act as independent-looking knobs (a reset request is never also a failure).
    ///
    /// The stall draw comes third and only when `stallRate > 0`, so a seed replays the same
    /// resets and failures as it did before stalls existed.
    func nextDecision() -> FaultDecision {
        guard failRate > 0 || resetRate > 0 || stallRate > 0 else { return .none }
        let (resetDraw, failDraw, stallDraw) = generator.withLockedValue { rng in
            (rng.nextUnitInterval(), rng.nextUnitInterval(), stallRate > 0 ? rng.nextUnitInterval() : 1)
        }
        if resetDraw < resetRate { return .reset }
        if failDraw < failRate { return .fail(status: failStatus, retryAfter: retryAfter) }
        if stallDraw < stallRate { return .stall }
        return .none
    }

    /// Draws whether the next stored file gets a wrong byte (`corruptRate`); no draw when the rate is 0, so
    /// seeds replay the same request faults as before.
    func corruptsNextFile() -> Bool {
        guard corruptRate > 0 else { return false }
        return generator.withLockedValue { $0.nextUnitInterval() } < corruptRate
    }

    /// Aborts the connection so the client sees a transport error instead of an HTTP status.
    ///
    /// `SO_LINGER` with a zero timeout makes `close()` send a TCP RST and discard unsent data, so
    /// even a client that has already sent its whole body gets "connection reset"/"empty reply"
    /// rather than a graceful FIN it might mistake for a finished exchange.
    static func resetConnection(_ channel: any Channel) async {
        if let provider = channel as? any SocketOptionProvider {
            try? await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
        }
        try? await channel.close(mode: .all).get()
    }

    /// Returns once the client has hung up, or the server shuts down (the stalled request would
    /// never finish, so a graceful shutdown need not wait for it), or the task is cancelled; then
    /// closes the connection. A stalled handler thus never outlives its client or its server.
    static func waitForHangUp(on channel: any Channel) async {
        await withGracefulShutdownHandler {
            await withTaskCancellationHandler {
                await HangUpObserver.waitForHangUp(on: channel)
            } onCancel: {
                channel.close(promise: nil)
            }
        } onGracefulShutdown: {
            channel.close(promise: nil)
        }
        try? await channel.close(mode: .all).get()
    }

    /// Builds the response for an injected failure.
    static func failureError(status: Int, retryAfter: Int?) -> ReferenceServerError {
        var headers: [String: String] = [:]
        if let retryAfter { headers["Retry-After"] = String(retryAfter) }
        return ReferenceServerError(.injectedFault, "injected fault", status: status, headers: headers)
    }
}

extension FaultInjector {
    /// Applies the per-request fault draw of an upload route: returns normally for "no fault"
    /// (after sending any pending `100 Continue`), otherwise throws after either draining the body
    /// (injected HTTP failure), killing the connection (reset) or waiting for the client to give up
    /// (stall).
    func apply(
        to request: Request, context: UploadRequestContext, statistics: StatisticsRecorder
    ) async throws {
        switch nextDecision() {
        case .none:
            await ContinueExpectationHandler.sendContinueIfPending(on: context.channel)
            return
        case .fail(let status, let retryAfter):
            // Drain first: answering while the client is still sending makes many clients report a
            // send error instead of the status we want them to see.
            await ContinueExpectationHandler.sendContinueIfPending(on: context.channel)
            for try await chunk in request.body {
                context.bodyBytes.add(chunk.readableBytes)
            }
            statistics.record { [bytes = context.bodyBytes.value] in
                $0.faultsInjected += 1
                $0.bytesReceived += bytes
            }
            throw FaultInjector.failureError(status: status, retryAfter: retryAfter)
        case .reset:
            // Drop the connection with the upload under way: after one body chunk, or — when the
            // client is holding its body until `100 Continue` — right away, before any byte of
            // response has been sent.
            if !request.head.expectsContinue {
                var iterator = request.body.makeAsyncIterator()
                if let chunk = try? await iterator.next() {
                    context.bodyBytes.add(chunk.readableBytes)
                }
            }
            // Counted before the reset: a client that sees it may read the statistics at once.
            statistics.record { [bytes = context.bodyBytes.value] in
                $0.resets += 1
                $0.bytesReceived += bytes
            }
            await FaultInjector.resetConnection(context.channel)
            throw ConnectionResetInjected()
        case .stall:
            // Counted before the `100 Continue`: a client that waits for it cannot time out and
            // read the statistics before the stall is recorded.
            statistics.record { $0.stalls += 1 }
            await ContinueExpectationHandler.sendContinueIfPending(on: context.channel)
            // One chunk, so the upload is seen to start; the iterator is then simply abandoned.
            // Hummingbird's body stream applies backpressure, the socket buffers fill and the
            // client's send stalls. Its close reaches us (see `HangUpObserver`) as long as the rest
            // of its body fitted in the socket buffers; with more, TCP queues its FIN behind bytes
            // we never read (and drops the orphaned socket later without a RST), so then only the
            // server's shutdown ends the wait.
            var iterator = request.body.makeAsyncIterator()
            if let chunk = try? await iterator.next() {
                context.bodyBytes.add(chunk.readableBytes)
                statistics.record { $0.bytesReceived += chunk.readableBytes }
            }
            await FaultInjector.waitForHangUp(on: context.channel)
            throw StalledConnectionClosed()
        }
    }
}

/// SplitMix64: tiny, fast and good enough for fault dice; chosen because it is trivially seedable
/// and identical on every platform, unlike `SystemRandomNumberGenerator`.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A double in `0..<1` built from the top 53 bits.
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }
}
