import Synchronization

/// Per-transfer counters the transport writes from its progress callback and the session samples.
///
/// The callback fires thousands of times a second, so it only stores numbers here; nothing hops to an actor.
public final class TransferProbe: Sendable {
    private let sentBytes = Atomic<Int64>(0)
    private let totalBytes = Atomic<Int64>(0)
    private let allSentFlag = Atomic<Bool>(false)
    private let onAllSent: @Sendable () -> Void

    /// Creates a probe; `onAllSent` runs once, on the transport's thread, when the last request byte is sent.
    public init(onAllSent: @escaping @Sendable () -> Void = {}) {
        self.onAllSent = onAllSent
    }

    /// Stores the request's progress; called from the transport's callback.
    public func report(sent: Int64, total: Int64) {
        sentBytes.store(sent, ordering: .relaxed)
        totalBytes.store(total, ordering: .relaxed)
        if total > 0, sent >= total { markAllSent() }
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
