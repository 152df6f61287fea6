import Testing
import UploadDomain

@Suite("ProgressTracker")
struct ProgressTrackerTests {
    @Test("the rate shows from the second sample, even within the first 100 ms")
    func earlyRate() {
        var tracker = ProgressTracker()
        let first = tracker.sample(at: .zero, bytesSent: 0, remaining: 1_000_000)
        #expect(first.rate == 0 && first.eta == nil)
        let early = tracker.sample(at: .milliseconds(50), bytesSent: 50_000, remaining: 950_000)
        #expect(early.rate == 1_000_000)
        let later = tracker.sample(at: .milliseconds(80), bytesSent: 80_000, remaining: 920_000)
        #expect(later.rate == 1_000_000)
        #expect(later.eta == .milliseconds(920))
    }

    @Test("the rate is over the window: old samples drop out once 5 s have passed")
    func window() {
        var tracker = ProgressTracker()
        _ = tracker.sample(at: .zero, bytesSent: 0, remaining: 100_000_000)
        for second in 1...5 {
            _ = tracker.sample(at: .seconds(second), bytesSent: Int64(second) * 1_000_000, remaining: 1)
        }
        // The next 2 s at 4 MB/s; the window then holds seconds 2 to 7.
        _ = tracker.sample(at: .seconds(6), bytesSent: 9_000_000, remaining: 1)
        let now = tracker.sample(at: .seconds(7), bytesSent: 13_000_000, remaining: 0)
        #expect(now.rate == 11_000_000 / 5)
        #expect(now.eta == .zero)
    }

    @Test("a transfer that stalls for the whole window shows no time left, not hours that grow each second")
    func stall() {
        var tracker = ProgressTracker()
        var files = PhaseCounts()
        files.uploading = 1
        var last: (rate: Double, eta: Duration?, range: EtaRange?) = (0, nil, nil)
        for tenth in 0...40 {
            last = tracker.sample(
                at: .milliseconds(tenth * 100), bytesSent: Int64(tenth) * 100_000, remaining: 100_000_000, files: files)
        }
        #expect(last.eta != nil && last.range != nil)
        for tenth in 41...100 {
            last = tracker.sample(
                at: .milliseconds(tenth * 100), bytesSent: 4_000_000, remaining: 96_000_000, files: files)
        }
        #expect(last.rate == 0)
        #expect(last.eta == nil && last.range == nil, "\(String(describing: last.eta))")
        last = tracker.sample(at: .milliseconds(10_100), bytesSent: 4_100_000, remaining: 95_900_000, files: files)
        #expect(last.eta != nil, "bytes move again: a time left again")
    }

    @Test("a server that takes 20 s per file: the time left counts the waves of files still to send, each waiting")
    func serverProcessing() {
        var tracker = ProgressTracker()
        var files = PhaseCounts()
        (files.queued, files.uploading, files.modeling) = (8, 2, 2)
        var last: (rate: Double, eta: Duration?, range: EtaRange?) = (0, nil, nil)
        for second in 0...5 {
            last = tracker.sample(
                at: .seconds(second), bytesSent: Int64(second) * 1_000_000, remaining: 10_000_000, files: files,
                answerWait: .seconds(20), width: 4)
        }
        // Twelve files left, four at a time: three waves of 20 s, whatever the bytes say.
        #expect(last.eta.map { $0 >= .seconds(60) } == true, "\(String(describing: last.eta))")
        #expect(last.range.map { $0.low >= .seconds(60) } ?? true)
        let quick = tracker.sample(
            at: .seconds(6), bytesSent: 6_000_000, remaining: 10_000_000, files: files, width: 4)
        #expect(quick.eta.map { $0 < .seconds(60) } == true)
    }
}
