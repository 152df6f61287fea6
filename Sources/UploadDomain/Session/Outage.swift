/// A server that cannot be reached (a restart, the network gone): tried by one request at a time until it answers.
///
/// Its failed tries are the outage's, not the files': a file spends none of its `--retries` on them, whichever file
/// happens to probe. The outage has a patience instead, the policy's longest backoff (`maxDelay`, 30 s by default)
/// for each retry it allows: 2.5 minutes with the default 5. It is tried with backoff from half a second to 10 s, so a
/// server back is found soon (a refused connection costs nothing). After that the run stops, and a rerun sends what
/// is left.
struct Outage {
    /// When the first request found the server gone (`UploadClock.now`).
    let since: Duration
    /// Tries since: the requests in flight when it began count as one.
    private(set) var rounds = 1

    init(since: Duration) {
        self.since = since
    }

    /// The wait before the next try after one more failed, or nil when the outage has outlasted `policy`'s patience.
    /// - Parameters:
    ///   - probed: The failed request started during the outage (not one of those in flight when it began).
    ///   - unit: A random number in 0...1 for the jitter.
    mutating func retry(probed: Bool, now: Duration, policy: RetryPolicy, unit: Double) -> Duration? {
        if probed { rounds += 1 }
        let left = since + Self.patience(policy) - now
        guard policy.maxRetries > 0, left > .zero else { return nil }
        // Equal jitter: at least half the backoff, so a restart is not met by tries in quick succession.
        let ceiling = min(policy.baseDelay * (1 << min(rounds - 1, 20)), policy.maxDelay, Self.longestWait)
        // The last try is at the end of the patience, not a whole backoff after it.
        return min(ceiling * (0.5 + 0.5 * max(0, min(1, unit))), left)
    }

    /// The longest wait between tries.
    static let longestWait = Duration.seconds(10)

    /// How long an outage is waited out: the policy's `maxDelay` for each retry.
    static func patience(_ policy: RetryPolicy) -> Duration {
        policy.maxDelay * policy.maxRetries
    }
}
