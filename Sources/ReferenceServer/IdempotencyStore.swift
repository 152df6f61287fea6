import Synchronization

/// Remembers the `Idempotency-Key`s of upload requests, so that a request whose answer the client
/// never saw (it was killed, or interrupted) is not stored a second time when the client sends it
/// again: the repeat gets the first answer back instead.
///
/// Keys live in memory only, for ``timeToLive`` seconds after their request succeeded; a restarted
/// server has forgotten them. The rules per key are in ``StateMachine``; how a route applies them is
/// in `IdempotencyStore+Request.swift`.
final class IdempotencyStore: Sendable {
    /// Where a key was first used. A key is bound to one method and path: reusing it elsewhere is a
    /// client error, not a retry.
    struct Scope: Hashable, Sendable {
        /// The request method, e.g. `POST`.
        var method: String
        /// The request path as sent (percent-encoded, no query).
        var path: String
    }

    /// The right to finish the in-flight request of a key; handed out by ``begin(key:scope:)``.
    struct Claim: Hashable, Sendable {
        /// The key.
        var key: String
        /// Tells this request's claim from that of a later request with the same key.
        var token: UInt64
    }

    /// The first successful request under a key.
    struct Completed: Equatable, Sendable {
        /// What it asked for.
        var fingerprint: RequestFingerprint
        /// What it was answered.
        var response: RecordedResponse
    }

    /// Seconds a succeeded key is remembered (24 hours by default).
    let timeToLive: Double
    private let state: Mutex<StateMachine>
    private let now: @Sendable () -> Double

    /// - Parameters:
    ///   - timeToLive: seconds a succeeded key is remembered.
    ///   - capacity: most keys remembered; the oldest are forgotten first.
    ///   - byteBudget: most answer bytes remembered; the oldest are forgotten first.
    ///   - now: the clock, in seconds (tests move it to expire keys without waiting).
    init(timeToLive: Double, capacity: Int, byteBudget: Int = 256 << 20, now: @escaping @Sendable () -> Double) {
        self.timeToLive = timeToLive
        self.state = Mutex(StateMachine(timeToLive: timeToLive, capacity: capacity, byteBudget: byteBudget))
        self.now = now
    }

    /// A request with `key` arrived; see ``StateMachine/BeginAction``.
    func begin(key: IdempotencyKey, scope: Scope) -> StateMachine.BeginAction {
        let now = now()
        return state.withLock { $0.begin(key: key.value, scope: scope, now: now) }
    }

    /// The claimed request was answered with `response`; a 2xx answer is kept for replays.
    @discardableResult
    func finished(_ claim: Claim, fingerprint: RequestFingerprint, response: RecordedResponse)
        -> StateMachine.EndAction
    {
        let now = now()
        return state.withLock { $0.finished(claim, fingerprint: fingerprint, response: response, now: now) }
    }

    /// The claimed request ended without an answer to keep; does nothing once it has finished.
    @discardableResult
    func abandoned(_ claim: Claim) -> StateMachine.EndAction {
        state.withLock { $0.abandoned(claim) }
    }
}
