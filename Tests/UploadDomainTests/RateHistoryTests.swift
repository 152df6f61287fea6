import Testing
import UploadDomain

@Suite("RateHistory")
struct RateHistoryTests {
    @Test("one sample per second from the growth of bytesSent, shared by time between readings; a drop is zero")
    func scriptedSeries() {
        var history = RateHistory()
        history.record(bytesSent: 0, at: .zero)
        history.record(bytesSent: 500, at: .milliseconds(500))
        history.record(bytesSent: 1000, at: .milliseconds(1000))
        #expect(history.samples == [1000])
        // A retry starts a file over: bytesSent falls, and the fall is no negative rate.
        history.record(bytesSent: 800, at: .milliseconds(1500))
        // 2,200 bytes between 1.5 s and 2.1 s: five sixths in second 1, one sixth in second 2.
        history.record(bytesSent: 3000, at: .milliseconds(2100))
        #expect(history.samples.count == 2 && abs(history.samples[1] - 2200 * 5 / 6) < 0.001)
        history.record(bytesSent: 3000, at: .seconds(5))
        #expect(history.samples.count == 5 && abs(history.samples[2] - 2200 / 6) < 0.001)
        #expect(history.samples.suffix(2) == [0, 0])
        #expect(history.current == 0)
    }

    @Test("a reading three seconds late spreads its bytes over those seconds: no peak above the rate the batch kept")
    func lateReading() {
        var history = RateHistory()
        history.record(bytesSent: 0, at: .zero)
        history.record(bytesSent: 500, at: .seconds(1))
        history.record(bytesSent: 2000, at: .seconds(4))
        #expect(history.samples == [500, 500, 500, 500])
        #expect(history.peak == 500)
        // Past the window, only its last 60 seconds are kept, each with its share.
        history.record(bytesSent: 2000 + 100 * 500, at: .seconds(104))
        #expect(history.samples.count == 60)
        #expect(history.samples.allSatisfy { abs($0 - 500) < 0.001 })
    }

    @Test(
        "the bytes sent before the first reading fill the seconds since the run's start: the peak is no less than the mean"
    )
    func bytesBeforeTheFirstReading() {
        // 3.7 MB out within the first 2.5 s, read first at 2.5 s; then the server takes 6 s to answer.
        var history = RateHistory()
        history.record(bytesSent: 3_700_000, at: .milliseconds(2500))
        history.record(bytesSent: 3_800_000, at: .seconds(3))
        history.record(bytesSent: 3_800_000, at: .seconds(9))
        #expect(history.samples.count == 9)
        #expect(history.samples.prefix(2) == [1_480_000, 1_480_000], "\(history.samples)")
        #expect(history.peak >= 3_800_000 / 9.0)
        #expect(abs(history.samples.reduce(0, +) - 3_800_000) < 0.001)
        // A screen attaching to a run gets its seconds so far: the bytes before its first reading are in them.
        var seeded = RateHistory(samples: [1_480_000, 1_480_000])
        seeded.record(bytesSent: 3_700_000, at: .milliseconds(2500))
        seeded.record(bytesSent: 3_800_000, at: .seconds(3))
        #expect(seeded.samples == [1_480_000, 1_480_000, 100_000])
    }

    @Test("the window keeps the last 60 seconds")
    func window() {
        var history = RateHistory()
        for second in 0...100 { history.record(bytesSent: Int64(second * second), at: .seconds(second)) }
        #expect(history.samples.count == 60)
        #expect(history.current == Double(100 * 100 - 99 * 99))
        #expect(history.samples.first == Double(41 * 41 - 40 * 40))
    }

    @Test("cells squeeze the minute into the width, newest right, blank before the first sample")
    func cells() {
        let history = RateHistory(samples: (1...30).map(Double.init))
        let cells = history.cells(width: 30)
        #expect(cells.count == 30)
        #expect(cells.prefix(15).allSatisfy { $0 == nil })
        #expect(cells[15] == 1.5)
        #expect(cells.last == 29.5)
        #expect(history.cells(width: 200).count == 60)
    }
}
