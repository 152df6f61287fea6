import Testing
import UploadDomain

@Suite("ConcurrencyTuner")
struct ConcurrencyTunerTests {
    /// Drives `tuner` over a simulated link for `seconds`, a sample every 250 ms: `goodput(width)` bytes/s, and
    /// `failing(width)` failed attempts per sample. Returns the widths it moved through.
    func drive(
        _ tuner: inout ConcurrencyTuner, seconds: Int, saturated: Bool = true, failing: (Int) -> Int = { _ in 0 },
        goodput: (Int) -> Double
    ) -> [Int] {
        var widths = [tuner.width]
        var bytes = 0.0
        var failures = 0
        for step in 1...(seconds * 4) {
            bytes += goodput(tuner.width) / 4
            failures += failing(tuner.width)
            let sample = ConcurrencyTuner.Sample(
                time: .milliseconds(250 * step), bytesSent: Int64(bytes), failures: failures, saturated: saturated)
            if let width = tuner.observe(sample) { widths.append(width) }
        }
        return widths
    }

    @Test("a link that fills at 8 in flight: doubles from 4 while goodput grows, backs off to 8, probes 9 and returns")
    func findsTheKnee() {
        var tuner = ConcurrencyTuner()
        let widths = drive(&tuner, seconds: 30) { width in Double(min(width, 8)) * 1_000_000 }
        #expect(Array(widths.prefix(4)) == [4, 8, 16, 8])
        #expect(widths.dropFirst(4).allSatisfy { $0 == 8 || $0 == 9 })
        #expect(widths.contains(9))
        #expect(tuner.width == 8 || tuner.width == 9)
    }

    @Test("per-request latency that more width always hides: widens to the cap of 64")
    func widensToTheCap() {
        var tuner = ConcurrencyTuner()
        let widths = drive(&tuner, seconds: 40) { width in Double(width) * 100_000 }
        #expect(widths.prefix(5) == [4, 8, 16, 32, 64])
        #expect(tuner.width == 64)
    }

    @Test("failing requests halve the width, and it does not grow back while they go on")
    func failuresHalve() {
        var tuner = ConcurrencyTuner(width: 32)
        let widths = drive(&tuner, seconds: 20, failing: { $0 > 4 ? 1 : 0 }) { width in Double(width) * 100_000 }
        #expect(Array(widths.prefix(4)) == [32, 16, 8, 4])
        #expect(tuner.width <= 8)
    }

    @Test("windows in which the slots were not all used are not judged")
    func unsaturatedIsIgnored() {
        var tuner = ConcurrencyTuner()
        let widths = drive(&tuner, seconds: 20, saturated: false) { width in Double(width) * 1_000_000 }
        #expect(widths == [4])
    }

    @Test("the width stays within 1-64, whatever it is created with")
    func bounds() {
        #expect(ConcurrencyTuner(width: 0).width == 1)
        #expect(ConcurrencyTuner(width: 500).width == 64)
        var tuner = ConcurrencyTuner(width: 1)
        _ = drive(&tuner, seconds: 10, failing: { _ in 1 }) { _ in 1000 }
        #expect(tuner.width == 1)
    }
}
