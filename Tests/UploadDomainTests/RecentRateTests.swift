import Testing

@testable import UploadDomain

@Suite("RecentRate")
struct RecentRateTests {
    /// Feeds `rate` bytes per second for `seconds`, a sample every 100 ms, from `start`; returns the last rate.
    func feed(
        _ meter: inout RecentRate, rate: Int64, seconds: Int, from start: inout (time: Duration, sent: Int64)
    ) -> Double {
        var last = 0.0
        for _ in 0..<(seconds * 10) {
            start.time += .milliseconds(100)
            start.sent += rate / 10
            last = meter.update(sent: start.sent, at: start.time, started: .zero)
        }
        return last
    }

    @Test("a file that speeds up shows its new rate within a few seconds, not its average since it began")
    func followsTheRateNow() {
        var meter = RecentRate()
        var now: (time: Duration, sent: Int64) = (.zero, 0)
        #expect(abs(feed(&meter, rate: 100_000, seconds: 5, from: &now) - 100_000) < 1_000)
        let after = feed(&meter, rate: 300_000, seconds: 3, from: &now)
        #expect(after > 290_000, "\(after)")
        // The average since the start would read (5 × 100 k + 3 × 300 k) / 8 s = 175 k.
        #expect(Double(now.sent) / 8 < 180_000)
    }

    @Test("before its first half second the rate is the average since the attempt began")
    func firstSpan() {
        var meter = RecentRate()
        #expect(meter.update(sent: 0, at: .milliseconds(100), started: .zero) == 0)
        #expect(meter.update(sent: 30_000, at: .milliseconds(300), started: .zero) == 100_000)
    }

    @Test("a file that stops sending falls to nothing")
    func stopped() {
        var meter = RecentRate()
        var now: (time: Duration, sent: Int64) = (.zero, 0)
        _ = feed(&meter, rate: 100_000, seconds: 2, from: &now)
        #expect(feed(&meter, rate: 0, seconds: 5, from: &now) < 5_000)
    }
}
