import Testing

@testable import UploadData

/// `--bwlimit`'s bucket, driven as scripts of reads and clock readings (nanoseconds).
@Suite("TokenBucket")
struct TokenBucketTests {
    static let second: UInt64 = 1_000_000_000
    static let ms: UInt64 = 1_000_000

    /// Equal but for the rounding of the bucket's floating-point tokens.
    static func near(_ a: UInt64, _ b: UInt64) -> Bool { a > b ? a - b <= 2 : b - a <= 2 }

    @Test("without a cap every read gets what it asks for at once")
    func uncapped() {
        var bucket = TokenBucket(rate: nil, now: 0)
        #expect(bucket.take(65_536, now: 0) == 65_536)
        #expect(bucket.take(65_536, now: 0) == 65_536)
        #expect(bucket.delay(now: 0) == 0)
    }

    @Test("a new bucket is empty; the first token comes a moment later")
    func startsEmpty() {
        var bucket = TokenBucket(rate: 1_000, now: 5 * Self.second)
        #expect(bucket.take(100, now: 5 * Self.second) == 0)
        #expect(bucket.delay(now: 5 * Self.second) == 1)
        #expect(bucket.take(100, now: 5 * Self.second + 1) == 100)
    }

    @Test("a read goes into debt, and the next waits until it is paid off")
    func debt() {
        var bucket = TokenBucket(rate: 1_000_000, now: 0)
        // 1 ms: 1,000 tokens; a 64 KiB read takes them and owes 64,536, paid off in 64.536 ms.
        #expect(bucket.take(65_536, now: Self.ms) == 65_536)
        #expect(bucket.take(65_536, now: Self.ms) == 0)
        let delay = bucket.delay(now: Self.ms)
        #expect(Self.near(delay, 64_536_001))
        #expect(bucket.take(1, now: Self.ms + delay - 1_000) == 0)
        #expect(bucket.take(1, now: Self.ms + delay) == 1)
    }

    @Test("an idle bucket keeps a tenth of a second's worth, not more")
    func burst() {
        var bucket = TokenBucket(rate: 1_000_000, now: 0)
        // After 10 s idle: 100,000 tokens, so two 64 KiB reads at once and the third waits.
        #expect(bucket.take(65_536, now: 10 * Self.second) == 65_536)
        #expect(bucket.take(65_536, now: 10 * Self.second) == 65_536)
        #expect(bucket.take(65_536, now: 10 * Self.second) == 0)
    }

    @Test("reads as fast as allowed for 10 s move rate × 10 s, within burst and one read")
    func longRunAverage() {
        let rate: Int64 = 2 << 20
        var bucket = TokenBucket(rate: rate, now: 0)
        var now: UInt64 = 0
        var sent = 0
        // Four readers in turn, each asking for 64 KiB whenever the bucket lets anyone read.
        while now < 10 * Self.second {
            for _ in 0..<4 { sent += bucket.take(65_536, now: now) }
            now += max(1, bucket.delay(now: now))
        }
        let expected = Double(rate) * 10
        #expect(Double(sent) >= expected - 65_536)
        #expect(Double(sent) <= expected + bucket.burst + 65_536)
    }

    @Test("lowering the cap keeps the debt; raising it pays the debt off faster")
    func changeRate() {
        var bucket = TokenBucket(rate: 1_000_000, now: 0)
        // 1,000 tokens at 1 ms; a read of 101,000 owes 100,000.
        #expect(bucket.take(101_000, now: Self.ms) == 101_000)
        bucket.setRate(100_000, now: Self.ms)
        #expect(Self.near(bucket.delay(now: Self.ms), Self.second + 1))
        bucket.setRate(10_000_000, now: Self.ms)
        #expect(Self.near(bucket.delay(now: Self.ms), 10 * Self.ms + 1))
    }

    @Test("switching the cap off lets every read through; switching it on again starts empty")
    func offAndOn() {
        var bucket = TokenBucket(rate: 1_000, now: 0)
        #expect(bucket.take(1_000, now: 1) == 1_000)
        bucket.setRate(nil, now: 1)
        #expect(bucket.rate == nil)
        #expect(bucket.take(1_000_000, now: 1) == 1_000_000)
        #expect(bucket.delay(now: 1) == 0)
        bucket.setRate(1_000, now: 10 * Self.second)
        #expect(bucket.take(1, now: 10 * Self.second) == 0)
        #expect(bucket.take(1, now: 10 * Self.second + Self.ms) == 1)
    }

    @Test("a clock reading earlier than the last one adds no tokens")
    func clockBackwards() {
        var bucket = TokenBucket(rate: 1_000, now: Self.second)
        #expect(bucket.take(1, now: 0) == 0)
        #expect(bucket.delay(now: 0) > 0)
    }
}

extension TokenBucketTests {
    @Test("a process stopped for 4 s (Ctrl-Z) with readers in debt sends no more than the cap after it resumes")
    func clockJumpsForward() {
        let rate: Int64 = 512 << 10
        var bucket = TokenBucket(rate: rate, now: 0)
        var now: UInt64 = 0
        // Four readers at the cap for 2 s, so the bucket is in debt when the clock jumps.
        func readFor(_ span: UInt64) -> Int {
            var sent = 0
            let end = now + span
            while now < end {
                for _ in 0..<4 { sent += bucket.take(65_536, now: now) }
                now += max(1, bucket.delay(now: now))
            }
            return sent
        }
        _ = readFor(2 * Self.second)
        now += 4 * Self.second
        // The second after the stop: the cap, plus at most the burst a tenth of a second holds and one read.
        let sent = readFor(Self.second)
        #expect(Double(sent) <= Double(rate) + bucket.burst + 65_536, "\(sent)")
        #expect(bucket.burst <= Double(rate) / 10)
    }
}
