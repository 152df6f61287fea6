import Glibc
import Synchronization

/// The engine-wide `--bwlimit`: one `TokenBucket` that the reads of every transfer on every curl thread draw from.
///
/// A read that finds the bucket empty pauses its transfer (`CURL_READFUNC_PAUSE`); the loop owning the transfer
/// sleeps until `delay()` and unpauses it. So the total is exact whatever the number of transfers, unlike libcurl's
/// per-transfer `MAX_SEND_SPEED`, which would have to be re-divided as transfers start and end.
final class BandwidthLimiter: Sendable {
    private let bucket: Mutex<TokenBucket>
    /// Mirrors `bucket.rate != nil`, so uncapped reads (~11,000 a second on loopback) take no lock.
    private let capped: Atomic<Bool>

    init(rate: Int64? = nil) {
        bucket = Mutex(TokenBucket(rate: rate, now: Self.now()))
        capped = Atomic(rate != nil)
    }

    /// Whether a cap is set.
    var isCapped: Bool { capped.load(ordering: .relaxed) }

    /// Bytes per second, nil when uncapped.
    var rate: Int64? { bucket.withLock { $0.rate } }

    /// Tokens for a read of `wanted` bytes: `wanted`, or 0 when the transfer must wait.
    func take(_ wanted: Int) -> Int {
        guard capped.load(ordering: .relaxed) else { return wanted }
        return bucket.withLock { $0.take(wanted, now: Self.now()) }
    }

    /// Nanoseconds until a waiting read would get tokens; 0 when it would now.
    func delay() -> UInt64 {
        guard capped.load(ordering: .relaxed) else { return 0 }
        return bucket.withLock { $0.delay(now: Self.now()) }
    }

    /// Changes the cap; nil removes it. The loops must be woken to let waiting transfers go on.
    func setRate(_ rate: Int64?) {
        bucket.withLock { bucket in
            bucket.setRate(rate, now: Self.now())
            capped.store(rate != nil, ordering: .relaxed)
        }
    }

    /// The precise monotonic clock: the coarse one's 4 ms tick would wake a loop before its tokens are there.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

/// One transfer's side of the limiter: whether its last read found the bucket empty, and since when.
///
/// Touched only on the transfer's curl thread (by the read callback and by the loop between performs).
final class TransferThrottle {
    let limiter: BandwidthLimiter
    /// When the transfer paused for tokens; nil while it may read.
    private(set) var waitingSince: UInt64?

    init(limiter: BandwidthLimiter) {
        self.limiter = limiter
    }

    /// Bytes a read may fill: `wanted`, or 0 when the transfer is to pause until the loop resumes it.
    func allow(_ wanted: Int) -> Int {
        let granted = limiter.take(wanted)
        if granted == 0, waitingSince == nil { waitingSince = BandwidthLimiter.now() }
        return granted
    }

    var isWaiting: Bool { waitingSince != nil }

    /// Called as the loop unpauses the transfer.
    func resumed() {
        waitingSince = nil
    }
}
