/// The arithmetic of `--bwlimit`: byte tokens that fill at `rate` per second, taken by every transfer's reads.
///
/// A read that finds tokens takes all it asks for, and the bucket may go into debt by that much: libcurl asks
/// for a whole upload buffer (64 KiB) at a time, and handing out less would only mean more, smaller sends. The
/// debt is paid off before anyone reads again, so over any span the bytes taken are at most
/// `rate × span + burst + one read`. Times are nanoseconds of a monotonic clock, passed in by the caller.
struct TokenBucket {
    /// Bytes per second; nil when there is no cap.
    private(set) var rate: Int64?
    /// May be negative (a debt); at most `burst`.
    private var tokens: Double = 0
    private var updated: UInt64

    /// A bucket that starts empty at `now`: the first read waits for the first token, not for a full second.
    init(rate: Int64?, now: UInt64) {
        self.rate = rate.map { max(1, $0) }
        updated = now
    }

    /// Tokens an idle bucket keeps: a tenth of a second's worth, so a pause is not made up for by a burst.
    var burst: Double { Double(rate ?? 0) / 10 }

    /// Takes tokens for a read of `wanted` bytes.
    /// - Returns: `wanted` when there is no cap or the bucket holds any token, else 0 (wait `delay(now:)`).
    mutating func take(_ wanted: Int, now: UInt64) -> Int {
        guard rate != nil else { return wanted }
        refill(now)
        guard tokens > 0 else { return 0 }
        tokens -= Double(wanted)
        return wanted
    }

    /// Nanoseconds from `now` until a read would get tokens: 0 when one would now (or there is no cap).
    mutating func delay(now: UInt64) -> UInt64 {
        guard let rate else { return 0 }
        refill(now)
        guard tokens <= 0 else { return 0 }
        // One nanosecond more, so that at the moment given the tokens are above 0, not at it.
        return UInt64((-tokens / Double(rate) * 1e9).rounded(.up)) + 1
    }

    /// Changes the cap (nil: none). A debt is kept, so lowering the cap mid-transfer sends no burst; tokens beyond
    /// the new burst are dropped.
    mutating func setRate(_ rate: Int64?, now: UInt64) {
        refill(now)
        if self.rate == nil { tokens = 0 }
        self.rate = rate.map { max(1, $0) }
        tokens = min(tokens, burst)
    }

    private mutating func refill(_ now: UInt64) {
        if let rate, now > updated {
            tokens = min(burst, tokens + Double(now - updated) / 1e9 * Double(rate))
        }
        updated = max(updated, now)
    }
}
