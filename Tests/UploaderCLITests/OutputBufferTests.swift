import Foundation
import Synchronization
import Testing
import UploadDomain

@testable import UploaderCLI

@Suite("Buffered headless output")
struct OutputBufferTests {
    /// A pipe whose read end does not block, so "nothing written yet" is a read that finds nothing; 1 MiB deep, so
    /// a full buffer's write does not wait for a reader.
    private final class Pipe {
        let read: Int32
        let write: Int32

        init() throws {
            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            read = ends[0]
            write = ends[1]
            _ = fcntl(read, F_SETFL, O_NONBLOCK)
            let setPipeSize: Int32 = 1031  // F_SETPIPE_SZ, which Glibc shows only under _GNU_SOURCE
            try #require(fcntl(write, setPipeSize, 1 << 20) >= OutputBuffer.limit * 2)
        }

        deinit {
            close(read)
            close(write)
        }

        func available() -> String {
            var text: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = chunk.withUnsafeMutableBytes { Foundation.read(read, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                text += chunk[..<count]
            }
            return String(decoding: text, as: UTF8.self)
        }
    }

    @Test("lines wait for flush, then go out whole and in order")
    func holdsUntilFlush() throws {
        let pipe = try Pipe()
        let buffer = OutputBuffer(descriptor: pipe.write)
        buffer.append("{\"event\":\"queued\"}")
        buffer.append("second")
        #expect(pipe.available() == "")
        buffer.flush()
        #expect(pipe.available() == "{\"event\":\"queued\"}\nsecond\n")
        buffer.flush()
        #expect(pipe.available() == "")
    }

    @Test("past the size limit, lines are written without waiting for a flush")
    func writesWhenFull() throws {
        let pipe = try Pipe()
        let buffer = OutputBuffer(descriptor: pipe.write)
        let line = String(repeating: "x", count: 999)
        for _ in 0..<(OutputBuffer.limit / 1000) { buffer.append(line) }
        #expect(pipe.available() == "")
        buffer.append(line)
        #expect(pipe.available().count == (OutputBuffer.limit / 1000 + 1) * 1000)
    }

    @Test("the reporter flushes once the interval has passed since its last flush, and at the summary")
    func reporterFlushesOnTime() async {
        let flushes = Atomic<Int>(0)
        let lines = Mutex<[String]>([])
        let output = HeadlessReporter.Output(
            standardOutput: { line in lines.withLock { $0.append(line) } }, standardError: { _ in },
            flush: { flushes.add(1, ordering: .relaxed) })
        let clock = SteppedClock()
        let reporter = HeadlessReporter(json: true, output: output, clock: clock)
        clock.set(.seconds(10))
        await reporter.handle(event(.queued), total: 1)  // the first event finds the interval long passed
        #expect(flushes.load(ordering: .relaxed) == 1)
        clock.set(.seconds(10) + .milliseconds(99))
        await reporter.handle(event(.started), total: 1)
        #expect(flushes.load(ordering: .relaxed) == 1)
        clock.set(.seconds(10) + HeadlessReporter.flushInterval)
        await reporter.handle(event(.done), total: 1)
        #expect(flushes.load(ordering: .relaxed) == 2)
        await reporter.summary(
            UploadSnapshot(
                files: [],
                progress: BatchProgress(
                    counts: PhaseCounts(), bytesSent: 0, bytesTotal: 0, bytesPerSecond: 0, eta: nil),
                toast: .done,
                concurrency: 1, isIdle: true, elapsed: .zero),
            exitCode: 0)
        #expect(flushes.load(ordering: .relaxed) == 3)
        #expect(lines.withLock { $0.count } == 4)
        // A tick that comes late writes nothing after the summary, not even the width's first event.
        await reporter.progress(uploading(sent: 1, rate: 1))
        #expect(lines.withLock { $0.count } == 4)
        #expect(lines.withLock { $0.last?.contains("\"event\":\"summary\"") } == true)
    }

    @Test("the first progress line comes a second after uploads start, with the rate measured by then")
    func firstProgressLineWaits() async {
        let lines = Mutex<[String]>([])
        let output = HeadlessReporter.Output(
            standardOutput: { _ in }, standardError: { line in lines.withLock { $0.append(line) } }, flush: {})
        let clock = SteppedClock()
        let reporter = HeadlessReporter(json: false, output: output, clock: clock)
        clock.set(.seconds(5))
        await reporter.progress(uploading(sent: 0, rate: 0))
        await reporter.progress(uploading(sent: 1 << 20, rate: 0))
        #expect(lines.withLock { $0 }.isEmpty)
        clock.set(.seconds(6))
        await reporter.progress(uploading(sent: 8 << 20, rate: 7 << 20))
        clock.set(.seconds(6) + .milliseconds(500))
        await reporter.progress(uploading(sent: 12 << 20, rate: 8 << 20))
        #expect(lines.withLock { $0 } == ["uploading: 0/1 files done, 8.0 MiB of 16.0 MiB (50%), 7.0 MiB/s"])
        clock.set(.seconds(7))
        await reporter.progress(uploading(sent: 15 << 20, rate: 8 << 20, eta: .seconds(1)))
        // Every byte out, the answer pending: no rate or ETA, which would only decay or read 0.0s.
        clock.set(.seconds(8))
        await reporter.progress(uploading(sent: 16 << 20, rate: 6 << 20, eta: .zero, phase: .modeling))
        #expect(
            lines.withLock { $0 } == [
                "uploading: 0/1 files done, 8.0 MiB of 16.0 MiB (50%), 7.0 MiB/s",
                "uploading: 0/1 files done, 15.0 MiB of 16.0 MiB (93%), 8.0 MiB/s, ETA 1s",
                "server processing: 0/1 files done, 16.0 MiB of 16.0 MiB (100%)",
            ])
    }

    @Test("files skipped as uploaded before are counted apart: the line's files and bytes are those it sends")
    func skippedApart() async {
        let lines = Mutex<[String]>([])
        let output = HeadlessReporter.Output(
            standardOutput: { _ in }, standardError: { line in lines.withLock { $0.append(line) } }, flush: {})
        let clock = SteppedClock()
        let reporter = HeadlessReporter(json: false, output: output, clock: clock)
        await reporter.progress(uploading(sent: 0, rate: 0, others: [.done, .skipped, .skipped]))
        clock.set(.seconds(1))
        await reporter.progress(uploading(sent: 8 << 20, rate: 8 << 20, others: [.done, .skipped, .skipped]))
        #expect(
            lines.withLock { $0 } == ["uploading: 1/2 files done (2 skipped), 8.0 MiB of 16.0 MiB (50%), 8.0 MiB/s"])
    }

    @Test("a server that cannot be reached is said every five seconds, with how long the run still waits for it")
    func unreachableServer() async {
        let lines = Mutex<[String]>([])
        let output = HeadlessReporter.Output(
            standardOutput: { _ in }, standardError: { line in lines.withLock { $0.append(line) } }, flush: {})
        let clock = SteppedClock()
        let reporter = HeadlessReporter(json: false, output: output, clock: clock)
        for second in [10, 12, 15] {
            clock.set(.seconds(second))
            var snapshot = uploading(sent: 0, rate: 0)
            snapshot.unreachable = Unreachable(gone: .seconds(second - 8), patienceLeft: .seconds(158 - second))
            await reporter.progress(snapshot)
        }
        #expect(
            lines.withLock { $0 } == [
                "server unreachable for 2.0s: one request at a time tries it; the run stops in 2m28s unless it answers",
                "server unreachable for 7.0s: one request at a time tries it; the run stops in 2m23s unless it answers",
            ])
    }

    private func uploading(
        sent: Int64, rate: Int64, eta: Duration? = nil, phase: UploadPhase = .uploading, others: [UploadPhase] = []
    ) -> UploadSnapshot {
        UploadSnapshot(
            files: [],
            progress: BatchProgress(
                counts: PhaseCounts([phase] + others), bytesSent: sent, bytesTotal: 16 << 20,
                bytesPerSecond: Double(rate),
                eta: eta),
            toast: phase == .modeling ? .modeling : .uploading(fraction: Double(sent) / Double(16 << 20)),
            concurrency: 1, isIdle: false, elapsed: .zero)
    }

    private func event(_ kind: UploadEvent.Kind) -> UploadEvent {
        UploadEvent(
            kind: kind,
            file: FileSnapshot(
                id: 0, name: "cat.jpg", path: "/p/cat.jpg", destination: "http://h/", size: 10, sent: 0, phase: .queued,
                attempt: 1))
    }
}

/// A clock the test sets; nothing sleeps on it here.
private final class SteppedClock: UploadClock {
    private let current = Mutex<Duration>(.zero)
    var now: Duration { current.withLock { $0 } }
    func set(_ time: Duration) { current.withLock { $0 = time } }
    func sleep(for duration: Duration) async throws {}
}
