import Synchronization

/// Per-transfer counters the transport writes from its progress callback and the session samples.
///
/// The callback fires thousands of times a second, so it only stores numbers here; nothing hops to an actor.
public final class TransferProbe: Sendable {
    private let sentBytes = Atomic<Int64>(0)
    private let totalBytes = Atomic<Int64>(0)
    private let allSentFlag = Atomic<Bool>(false)
    private let carriedBytes = Atomic<Int64>(0)
    private let resentParts = Atomic<Int>(0)
    private let keptFlag = Atomic<Bool>(false)
    private let sendingFlag = Atomic<Bool>(false)
    private let onAllSent: @Sendable () -> Void
    private let onSending: @Sendable () -> Void
    private let parent: TransferProbe?

    /// Creates a probe; `onAllSent` runs once, on the transport's thread, when the last request byte is sent, and
    /// `onSending` once when the first is (the server is there).
    public init(onAllSent: @escaping @Sendable () -> Void = {}, onSending: @escaping @Sendable () -> Void = {}) {
        self.onAllSent = onAllSent
        self.onSending = onSending
        self.parent = nil
    }

    /// A probe for one of several requests that make up one upload (S3 parts): its bytes add to `parent`'s.
    public init(partOf parent: TransferProbe) {
        self.onAllSent = {}
        self.onSending = {}
        self.parent = parent
    }

    /// Stores the request's progress; called from the transport's callback.
    public func report(sent: Int64, total: Int64) {
        let previous = sentBytes.exchange(sent, ordering: .relaxed)
        totalBytes.store(total, ordering: .relaxed)
        if let parent {
            parent.add(sent - previous)
        } else {
            if sent > 0 { markSending() }
            if total > 0, sent >= total { markAllSent() }
        }
    }

    /// Counts `bytes` an earlier run sent (the finished parts of a multipart upload it continues) as sent, and apart:
    /// the bar shows them, the rate does not.
    public func carry(_ bytes: Int64) {
        carriedBytes.add(bytes, ordering: .relaxed)
        add(bytes, sending: false)
    }

    /// Bytes of `carry`.
    public var carried: Int64 { carriedBytes.load(ordering: .relaxed) }

    /// Counts nothing sent or carried again: the upload these bytes went to is gone, and a new one begins.
    public func startOver() {
        carriedBytes.store(0, ordering: .relaxed)
        sentBytes.store(0, ordering: .relaxed)
        allSentFlag.store(false, ordering: .releasing)
    }

    /// Notes a part sent again on its own (S3 multipart), for the file's result.
    public func partResent() { resentParts.add(1, ordering: .relaxed) }

    /// Parts of `partResent`.
    public var partsResent: Int { resentParts.load(ordering: .relaxed) }

    /// Notes that the interrupted upload is kept for the next run to continue (S3 multipart).
    public func keepForNextRun() { keptFlag.store(true, ordering: .relaxed) }

    /// Whether `keepForNextRun` was called.
    public var keptForNextRun: Bool { keptFlag.load(ordering: .relaxed) }

    /// Sets the size of an upload made of parts, before they start.
    public func expect(total: Int64) {
        totalBytes.store(total, ordering: .relaxed)
    }

    private func add(_ delta: Int64, sending: Bool = true) {
        let sent = sentBytes.add(delta, ordering: .relaxed).newValue
        // Carried bytes alone are no byte of this run's: the last part it sends makes the upload all sent.
        guard sending else { return }
        if delta > 0 { markSending() }
        let total = totalBytes.load(ordering: .relaxed)
        if total > 0, sent >= total { markAllSent() }
    }

    private func markSending() {
        // A load first: this runs on every progress callback, the exchange only once.
        guard !sendingFlag.load(ordering: .relaxed) else { return }
        if !sendingFlag.exchange(true, ordering: .relaxed) { onSending() }
    }

    /// Records that every request byte is out; the first call runs the hook.
    public func markAllSent() {
        if !allSentFlag.exchange(true, ordering: .acquiringAndReleasing) { onAllSent() }
    }

    /// Request bytes handed to the kernel so far.
    public var sent: Int64 { sentBytes.load(ordering: .relaxed) }
    /// Request size as the transport knows it (0 until known).
    public var total: Int64 { totalBytes.load(ordering: .relaxed) }
    /// True once every request byte is sent.
    public var allSent: Bool { allSentFlag.load(ordering: .acquiring) }
}
