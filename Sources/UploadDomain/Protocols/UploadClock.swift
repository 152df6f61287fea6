/// Time as the session sees it, injected so backoff and rates are testable.
public protocol UploadClock: Sendable {
    /// Time since an arbitrary fixed point.
    var now: Duration { get }
    /// Suspends for `duration`; throws when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

/// The real clock: `ContinuousClock`.
public struct SystemClock: UploadClock {
    private let origin = ContinuousClock.now

    /// Creates a clock whose `now` counts from its creation.
    public init() {}

    public var now: Duration { ContinuousClock.now - origin }

    public func sleep(for duration: Duration) async throws {
        try await ContinuousClock().sleep(for: duration)
    }
}
