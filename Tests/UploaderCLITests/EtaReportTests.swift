import Foundation
import Synchronization
import Testing
import UploadDomain

@testable import UploaderCLI

@Suite("Headless ETA range")
struct EtaReportTests {
    /// A clock the test sets.
    final class Clock: UploadClock {
        private let current = Mutex<Duration>(.zero)
        var now: Duration { current.withLock { $0 } }
        func set(_ time: Duration) { current.withLock { $0 = time } }
        func sleep(for duration: Duration) async throws {}
    }

    /// The range an estimator gives after 12 scripted seconds of 1 MB and a finished file every other second,
    /// with a jitter of 100 KB every third second, for 20 MB in 20 files left.
    static func scriptedRange() throws -> EtaRange {
        var estimator = EtaEstimator()
        var sent: Int64 = 0
        var finished = 0
        var range: EtaRange?
        for second in 0...12 {
            if second > 0 {
                sent += 1_000_000 - (second % 3 == 0 ? 100_000 : 0)
                finished += second.isMultiple(of: 2) ? 1 : 0
            }
            range = estimator.sample(
                at: .seconds(second), bytesSent: sent, filesFinished: finished, remainingBytes: 20_000_000,
                remainingFiles: 20)
        }
        return try #require(range)
    }

    /// Lines a reporter wrote to one stream.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// A JSON reporter on a test clock, with the stdout and stderr lines it writes.
    static func reporter() -> (HeadlessReporter, Clock, out: Lines, err: Lines) {
        let out = Lines()
        let err = Lines()
        let output = HeadlessReporter.Output(standardOutput: out.append, standardError: err.append)
        let clock = Clock()
        return (HeadlessReporter(json: true, output: output, clock: clock), clock, out, err)
    }

    func snapshot(_ range: EtaRange?, phase: UploadPhase) -> UploadSnapshot {
        let file = FileSnapshot(
            id: 0, name: "cat.jpg", path: "/p/cat.jpg", destination: "http://h/", size: 16 << 20,
            sent: phase == .uploading ? 8 << 20 : 16 << 20, phase: phase, attempt: 1)
        return UploadSnapshot(
            files: [file],
            progress: BatchProgress(
                counts: PhaseCounts([phase]), bytesSent: file.sent, bytesTotal: 16 << 20, bytesPerSecond: 1_048_576,
                eta: .seconds(8), etaRange: range),
            toast: phase == .modeling ? .modeling : .uploading(fraction: 0.5), concurrency: 1, isIdle: false,
            elapsed: .zero)
    }

    @Test("progress lines and NDJSON progress events carry the estimator's range, in the screen's whole seconds")
    func carried() async throws {
        let range = try Self.scriptedRange()
        #expect(range.low < range.high)
        let (reporter, clock, out, err) = Self.reporter()
        await reporter.progress(snapshot(range, phase: .uploading))
        clock.set(.seconds(1))
        await reporter.progress(snapshot(range, phase: .uploading))
        let low = Int(range.low.components.seconds)
        let high = Int(range.high.components.seconds)
        let event = try #require(out.all.first { $0.contains("\"event\":\"progress\"") })
        #expect(event.contains("\"eta_low_s\":\(low),\"eta_high_s\":\(high)"), "\(event)")
        let line = try #require(err.all.last)
        #expect(line.hasSuffix(", ETA " + Format.range(range)), "\(line)")
        #expect(Format.range(range).contains("–"))
    }

    @Test("a file's progress events follow its attempt's started event, though the snapshot comes first")
    func progressAfterStarted() async throws {
        let (reporter, clock, out, _) = Self.reporter()
        let uploading = snapshot(nil, phase: .uploading)
        let file = uploading.files[0]
        await reporter.handle(UploadEvent(kind: .queued, file: file), total: 1)
        await reporter.progress(uploading)
        await reporter.handle(UploadEvent(kind: .started, file: file), total: 1)
        clock.set(.seconds(1))
        await reporter.progress(uploading)
        await reporter.handle(UploadEvent(kind: .retrying, file: file, retryDelay: .seconds(1)), total: 1)
        clock.set(.seconds(3))
        var again = uploading
        again.files[0].attempt = 2
        again.files[0].sent = 1 << 20
        await reporter.progress(again)
        let events = out.all.compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["event"] as? String
        }
        #expect(events.filter { $0 != "concurrency" } == ["queued", "started", "progress", "retrying"], "\(out.all)")
    }

    @Test("no range yet: the single figure, and no eta fields; once every byte is out, neither")
    func absent() async throws {
        let (reporter, clock, out, err) = Self.reporter()
        await reporter.progress(snapshot(nil, phase: .uploading))
        clock.set(.seconds(1))
        await reporter.progress(snapshot(nil, phase: .uploading))
        #expect(!out.all.contains { $0.contains("eta_") })
        #expect(err.all.last?.hasSuffix(", ETA 8s") == true)
        #expect(Format.range(EtaRange(low: .milliseconds(11), high: .milliseconds(1_000))) == "1s")
        #expect(Format.timeLeft(.milliseconds(2)) == "1s" && Format.timeLeft(.milliseconds(7_200)) == "7s")
        #expect(Format.range(EtaRange(low: .seconds(40), high: .milliseconds(40_400))) == "40s")
    }
}
