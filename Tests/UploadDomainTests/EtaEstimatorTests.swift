import Testing
import UploadDomain

@Suite("EtaEstimator")
struct EtaEstimatorTests {
    /// A scripted batch: each second sends `bytes` and finishes `files`, against a total of work known upfront.
    struct Script {
        var estimator = EtaEstimator()
        var second = 0
        var sent: Int64 = 0
        var finished = 0
        let totalBytes: Int64
        let totalFiles: Int

        mutating func advance(bytes: Int64, files: Int) -> EtaRange? {
            second += 1
            sent += bytes
            finished += files
            return estimator.sample(
                at: .seconds(second), bytesSent: sent, filesFinished: finished, remainingBytes: totalBytes - sent,
                remainingFiles: totalFiles - finished)
        }

        mutating func start() -> EtaRange? {
            estimator.sample(
                at: .zero, bytesSent: 0, filesFinished: 0, remainingBytes: totalBytes, remainingFiles: totalFiles)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    @Test("no range until three seconds are seen; samples within a second leave it as it was")
    func warmUp() {
        var script = Script(totalBytes: 100_000_000, totalFiles: 100)
        #expect(script.start() == nil)
        #expect(script.advance(bytes: 1_000_000, files: 1) == nil)
        #expect(script.advance(bytes: 1_100_000, files: 1) == nil)
        let range = script.advance(bytes: 900_000, files: 1)
        #expect(range != nil)
        let sameSecond = script.estimator.sample(
            at: .milliseconds(3500), bytesSent: script.sent + 400_000, filesFinished: script.finished,
            remainingBytes: script.totalBytes - script.sent - 400_000, remainingFiles: 97)
        #expect(sameSecond == range)
    }

    @Test("small files left cost their requests: the range holds the true time, a byte rate alone falls short")
    func perRequestOverhead() throws {
        // True costs: 0.5 s of wall time per finished request beyond its bytes, 1 MB/s of goodput. Seconds alternate
        // between pure sending and sending plus one request finishing, so the window tells the two apart.
        var script = Script(totalBytes: 30_000_000, totalFiles: 60)
        _ = script.start()
        var range: EtaRange?
        for second in 1...20 {
            range =
                second.isMultiple(of: 2)
                ? script.advance(bytes: 500_000, files: 1) : script.advance(bytes: 1_000_000, files: 0)
        }
        // Left: 15 MB in 50 small files, 15 s of bytes and 25 s of requests.
        #expect(script.totalBytes - script.sent == 15_000_000 && script.totalFiles - script.finished == 50)
        let truth = 15.0 + 25.0
        let r = try #require(range)
        #expect(Self.seconds(r.low) - 0.5 <= truth && truth <= Self.seconds(r.high) + 0.5)
        let byteRateOnly = 15_000_000.0 / (15_000_000.0 / 20)
        #expect(Self.seconds(r.low) > byteRateOnly)
    }

    @Test("a steady batch narrows as it runs, and the range holds the time left")
    func narrows() throws {
        // Files of 2 MB, 2 MB/s with a jitter of ±10% that repeats every four seconds.
        let jitter: [Int64] = [1_800_000, 2_200_000, 2_100_000, 1_900_000]
        var script = Script(totalBytes: 200_000_000, totalFiles: 100)
        _ = script.start()
        var widths: [Int: Double] = [:]
        var ranges: [Int: EtaRange] = [:]
        var carry: Int64 = 0
        for second in 1...90 {
            let bytes = jitter[second % 4]
            carry += bytes
            let files = Int(carry / 2_000_000)
            carry %= 2_000_000
            guard let range = script.advance(bytes: bytes, files: files) else { continue }
            widths[second] = Self.seconds(range.high) - Self.seconds(range.low)
            ranges[second] = range
        }
        let early = try #require(widths[5])
        let middle = try #require(widths[40])
        let late = try #require(widths[85])
        #expect(early > middle && middle > late)
        for (second, range) in ranges where second >= 5 {
            let left = Double(script.totalBytes) / 2_000_000 - Double(second)
            #expect(Self.seconds(range.low) <= left + 1 && left - 1 <= Self.seconds(range.high), "second \(second)")
        }
    }

    @Test("seconds that send nothing widen the range; a window with no bytes at all gives none")
    func stalls() throws {
        var steady = Script(totalBytes: 100_000_000, totalFiles: 50)
        var stalling = Script(totalBytes: 100_000_000, totalFiles: 50)
        _ = steady.start()
        _ = stalling.start()
        var a: EtaRange?
        var b: EtaRange?
        for second in 1...12 {
            a = steady.advance(bytes: 1_000_000, files: second.isMultiple(of: 2) ? 1 : 0)
            // The same bytes over the same seconds, but in bursts with nothing between.
            b = stalling.advance(
                bytes: second.isMultiple(of: 3) ? 3_000_000 : 0, files: second.isMultiple(of: 6) ? 3 : 0)
        }
        let steadyRange = try #require(a)
        let stallingRange = try #require(b)
        #expect(stallingRange.high - stallingRange.low > steadyRange.high - steadyRange.low)

        var idle = Script(totalBytes: 1_000, totalFiles: 1)
        _ = idle.start()
        for _ in 1...5 { #expect(idle.advance(bytes: 0, files: 0) == nil) }
    }

    /// Each request waits 2 s on the server, four at a time: every other second four files finish and the next four
    /// files' bytes go out at once, and the second between moves nothing. Least squares through such bursts weighs
    /// each second by its count, and the range it gave ended before half the time left.
    @Test("files that finish in bursts: the range holds the time left")
    func burstyFinishes() throws {
        var script = Script(totalBytes: 100 * 48_000, totalFiles: 100)
        _ = script.start()
        var range: EtaRange?
        for second in 1...20 {
            range = second.isMultiple(of: 2)
                ? script.advance(bytes: 4 * 48_000, files: 4) : script.advance(bytes: 0, files: 0)
        }
        let left = try #require(range)
        // 60 files left at two a second.
        #expect(Self.seconds(left.low) <= 30 && Self.seconds(left.high) >= 30, "\(left)")
    }

    @Test("nothing left is a range of zero")
    func finished() {
        var script = Script(totalBytes: 4_000_000, totalFiles: 4)
        _ = script.start()
        var range: EtaRange?
        for _ in 1...4 { range = script.advance(bytes: 1_000_000, files: 1) }
        #expect(range == EtaRange(low: .zero, high: .zero))
    }
}
