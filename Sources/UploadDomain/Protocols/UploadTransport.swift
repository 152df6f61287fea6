/// Sends requests. The live implementation is libcurl; tests of pure logic use an in-memory one.
public protocol UploadTransport: Sendable {
    /// Sends one request and returns the server's response (any status).
    ///
    /// Cancelling the calling task cancels the transfer alone.
    /// - Throws: `UploadError` for transport failures (`.connectionFailed`, `.cancelled`, …).
    func send(_ request: TransferRequest, probe: TransferProbe) async throws -> TransferResponse

    /// Pauses or resumes the transfer that reports to `probe`.
    func setPaused(_ paused: Bool, probe: TransferProbe)

    /// Caps the upload rate of all transfers together, those in flight included; nil removes the cap.
    func setBandwidthLimit(_ bytesPerSecond: Int64?)

    /// Where the session's request tasks should run: the transport's own thread, so a finished transfer
    /// resumes its task without waking another; nil for the global executor.
    var taskExecutor: (any TaskExecutor)? { get }
}

extension UploadTransport {
    public var taskExecutor: (any TaskExecutor)? { nil }

    /// A transport without a cap of its own ignores it.
    public func setBandwidthLimit(_ bytesPerSecond: Int64?) {}
}

/// Turns files into requests for one destination protocol, and a response into per-file results.
public protocol RequestPlanner: Sendable {
    /// Files per request (1 unless batching).
    var batchSize: Int { get }
    /// True when each request carries an `Idempotency-Key`: a repeat must then send the same bytes, so a prepared
    /// image is always encoded the same way.
    var sendsIdempotencyKeys: Bool { get }
    /// Where a file goes, for display; never holds secrets.
    func destination(of item: UploadItem) -> String
    /// Where a file goes, as the journal tells destinations apart: unlike `destination`, two URLs that differ only in
    /// what redacting hides are two places. Never holds secrets.
    func journalDestination(of item: UploadItem) -> String
    /// A `curl` command line that reproduces the file's request; the token appears as `$UPLOADER_TOKEN`.
    func curlCommand(for item: UploadItem) -> String
    /// Builds the request for a group of at most `batchSize` files; may ask an API first (presigned URLs).
    func request(for items: [UploadItem]) async throws(UploadError) -> TransferRequest
    /// Splits a successful response into one result per file, in the order of `items`.
    func results(for items: [UploadItem], response: TransferResponse) -> [UploadResult]
    /// True when the failure is cured by a fresh request (an expired presigned ticket) and one more
    /// attempt should follow at once; the planner limits how often it says so.
    func renewsRequest(after error: UploadError, for item: UploadItem) -> Bool
    /// Uploads a group: by default one request; a destination may need several (S3 multipart upload),
    /// reporting their bytes to `probe` as one. The group holds one of `slots`; more requests at once
    /// need more slots, taken with `tryAcquire` and given back with `release`.
    /// - Throws: `UploadError`; `.cancelled` when the calling task is cancelled.
    func upload(
        _ items: [UploadItem], via transport: any UploadTransport, probe: TransferProbe, slots: TransferSlots
    ) async throws -> TransferResponse
    /// True when the failure would meet every file (a bucket that does not exist, keys the server does not know):
    /// the batch stops at the first instead of failing each file alike.
    func failsEveryFile(_ error: UploadError) -> Bool
    /// Nil when this destination can read back what it stored (`--verify`), else why it cannot, in a few words
    /// for a usage error: checked before anything is sent.
    var verifyRefusal: String? { get }
    /// Reads back what the server stored for each file of a successful upload and compares it with the bytes
    /// sent (`--verify`): one outcome per file, in the order of `items`.
    func verify(_ items: [UploadItem], response: TransferResponse, via transport: any UploadTransport) async
        -> [Verification]
}

extension RequestPlanner {
    public func journalDestination(of item: UploadItem) -> String { destination(of: item) }

    public func failsEveryFile(_ error: UploadError) -> Bool { false }

    public var sendsIdempotencyKeys: Bool { false }

    /// One request for the group.
    public func upload(
        _ items: [UploadItem], via transport: any UploadTransport, probe: TransferProbe, slots: TransferSlots
    ) async throws -> TransferResponse {
        try await transport.send(try await request(for: items), probe: probe)
    }

    public var verifyRefusal: String? { "this destination has no way to report what it stored" }

    public func verify(_ items: [UploadItem], response: TransferResponse, via transport: any UploadTransport) async
        -> [Verification]
    {
        items.map { .unavailable("this destination has no way to report what it stored", file: $0.relativePath) }
    }

    /// Most destinations have nothing to renew.
    public func renewsRequest(after error: UploadError, for item: UploadItem) -> Bool { false }
}
