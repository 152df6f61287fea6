import Foundation

/// Settings for a ``ReferenceServer``: where it listens, where it stores files, and which faults it
/// injects so clients can be tested against an unreliable peer.
public struct ReferenceServerConfiguration: Sendable {
    /// Interface to bind; `127.0.0.1` keeps the demo server off the network by default.
    public var host: String = "127.0.0.1"
    /// TCP port; `0` asks the kernel for a free port (read it back from `start()`).
    public var port: Int = 0
    /// Directory where received files go (`<root>/datasets/...`, `<root>/files/...` and
    /// `<root>/objects/...`).
    public var root: String
    /// When set, every route but `/healthz`, `PUT /objects/...` and `POST /auth/refresh` needs
    /// `Authorization: Bearer <token>` (this token or one issued by `POST /auth/refresh`), else 401.
    public var token: String? = nil
    /// Seconds a bearer token stays valid: `token` until the server's creation + TTL, issued tokens
    /// until their issue + TTL; an expired one gets 401 `invalid_token`. Nil: tokens never expire
    /// (unless ``ReferenceServer/expireTokens()`` is called).
    public var tokenTTL: Double? = nil
    /// Seconds since 1970; token expiry reads this clock so tests can move time without sleeping.
    public var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }
    /// Seconds added after the modeling step, before answering an image upload.
    public var modelingDelay: Double = 0
    /// Probability (0...1) that an upload is answered with `failStatus` instead of being stored.
    public var failRate: Double = 0
    /// HTTP status used for injected failures.
    public var failStatus: Int = 500
    /// Seconds sent as `Retry-After` on injected failures; omitted when nil.
    public var retryAfter: Int? = nil
    /// Probability (0...1) that an upload's connection is dropped mid-request with no response.
    public var resetRate: Double = 0
    /// Probability (0...1) that an upload stalls: the server reads its first body chunk, then stops
    /// reading and never answers until the client gives up and closes the connection. (A client
    /// whose unsent rest exceeds the socket buffers cannot signal its close; such a stalled request
    /// is ended when the server stops.)
    public var stallRate: Double = 0
    /// How long a graceful stop waits for requests still running before it ends them.
    public var shutdownLimit: Duration = .seconds(5)
    /// Probability (0...1) that a stored file gets a wrong byte; the digests the server reports (`sha256`, `ETag`)
    /// are those of the stored bytes, so a client that reads back (`--verify`) catches it.
    public var corruptRate: Double = 0
    /// Seeds the fault RNG so fault sequences are reproducible; random when nil.
    public var seed: UInt64? = nil
    /// Length of the queue of not-yet-accepted connections; large so bursts of parallel uploads
    /// are not refused.
    public var backlog: Int = 256
    /// Whether to write one line per request to stderr.
    public var logRequests: Bool = true
    /// Seconds an upload ticket from `POST /presigned-urls` stays valid (`expires` = now + TTL).
    /// `0` issues tickets that are already expired.
    public var ticketTTL: Double = 900
    /// Secret that signs upload tickets (HMAC-SHA256 over its UTF-8 bytes). When nil a random
    /// 256-bit key is drawn when the server is created, so tickets never outlive the server.
    public var ticketSecret: String? = nil
    /// Seconds the answer to a succeeded request with an `Idempotency-Key` is kept for replaying to
    /// repeats of that request (24 hours by default).
    public var idempotencyTTL: Double = 86_400
    /// Most `Idempotency-Key`s remembered at once; beyond it the oldest are forgotten.
    public var idempotencyCapacity: Int = 100_000
    /// Test hook: `POST /presigned-urls` answers one item fewer than it was asked for.
    public var presignCountMismatch: Bool = false
    /// Test hook: the first ticket issued for each filename is already expired; later tickets for
    /// the same filename are valid (exercises a client's "expired, fetch a new ticket" path).
    public var presignExpiredTickets: Bool = false

    /// Creates a configuration storing files under `root`, with no auth and no faults.
    public init(root: String) {
        self.root = root
    }
}
