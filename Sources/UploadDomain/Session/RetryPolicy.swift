/// Decides whether and when a failed attempt is tried again: exponential backoff with full jitter.
public struct RetryPolicy: Sendable {
    /// Retries after the first attempt.
    public var maxRetries: Int
    public var baseDelay: Duration
    public var maxDelay: Duration

    /// Creates a policy.
    public init(maxRetries: Int = 5, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(30)) {
        self.maxRetries = maxRetries
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// True for failures another attempt may cure: connection errors, timeouts, 408, 429 and 5xx, and a 409 that
    /// says when to come back (a server still working on an earlier request with the same `Idempotency-Key`).
    public static func isRetryable(_ error: UploadError) -> Bool {
        switch error.code {
        case .connectionFailed, .timedOut, .serverError: return true
        case .httpStatus(409): return error.retryAfter != nil
        case .httpStatus(let status): return status == 429 || (500...599).contains(status)
        default: return false
        }
    }

    /// The wait before the next attempt, or nil to give up.
    /// - Parameters:
    ///   - attempt: the attempt that just failed (1 for the first).
    ///   - unit: a random number in 0...1 (injected so tests are repeatable).
    public func delay(after error: UploadError, attempt: Int, unit: Double) -> Duration? {
        guard Self.isRetryable(error), attempt <= maxRetries else { return nil }
        if let retryAfter = error.retryAfter, retryAfter >= 0 {
            // Capped before the conversion: `Retry-After: 1e308` (or `inf`) is no Int64 of milliseconds.
            return .milliseconds(Int64(min(retryAfter, 300) * 1000))
        }
        let exponent = min(attempt - 1, 20)
        let ceiling = min(baseDelay * (1 << exponent), maxDelay)
        return ceiling * max(0, min(1, unit))
    }
}
