import Testing
import UploadDomain

@testable import UploaderTUI

@Suite("ScreenRenderer ETA")
struct ScreenRendererEtaTests {
    /// The range an estimator gives after 20 scripted seconds that alternate between sending 1 MB and sending
    /// 0.5 MB while a request finishes, with 10 MB in 25 files left (about 10 s of bytes and 12.5 s of requests).
    static func scriptedRange(jitter: Bool) throws -> EtaRange {
        var estimator = EtaEstimator()
        var sent: Int64 = 0
        var finished = 0
        var range: EtaRange?
        for second in 0...20 {
            if second > 0 {
                let extra: Int64 = jitter && second % 3 == 0 ? 150_000 : 0
                sent += (second.isMultiple(of: 2) ? 500_000 : 1_000_000) - extra
                finished += second.isMultiple(of: 2) ? 1 : 0
            }
            range = estimator.sample(
                at: .seconds(second), bytesSent: sent, filesFinished: finished, remainingBytes: 10_000_000,
                remainingFiles: 25)
        }
        return try #require(range)
    }

    func snapshot(_ range: EtaRange) -> UploadSnapshot {
        var snapshot = Fixtures.uploading
        snapshot.progress.etaRange = range
        return snapshot
    }

    @Test("the header's ETA is the estimator's range, low to high")
    func range() throws {
        let range = try Self.scriptedRange(jitter: true)
        #expect(range.low < range.high)
        let text = "ETA " + Formatting.duration(range.low) + "–" + Formatting.duration(range.high)
        for size in [TerminalSize(cols: 100, rows: 30), TerminalSize(cols: 80, rows: 24)] {
            let frame = Fixtures.render(snapshot(range), size: size)
            let line = frame.line(Layout(size: size).aggregateRow)
            #expect(line.contains(text), "\(line)")
            #expect(!line.contains("ETA 0:09"), "the smoothed single figure gives way to the range")
        }
    }

    @Test("no ETA while every transfer is paused or the batch stops")
    func noEtaWhileWaiting() throws {
        let range = EtaRange(low: .seconds(40), high: .seconds(55))
        let size = TerminalSize(cols: 100, rows: 30)
        let running = snapshot(range)
        #expect(Fixtures.render(running, size: size).line(Layout(size: size).aggregateRow).contains("ETA"))
        var paused = running
        paused.files = paused.files.map { file in
            var file = file
            if file.phase.isActive { file.isPaused = true }
            return file
        }
        var stopping = running
        stopping.stopping = StopState(graceLeft: .seconds(3))
        for waiting in [paused, stopping] {
            let line = Fixtures.render(waiting, size: size).line(Layout(size: size).aggregateRow)
            #expect(!line.contains("ETA"), "\(line)")
        }
    }

    @Test("ends that read the same show one figure; ASCII uses a hyphen")
    func collapsedAndAscii() throws {
        let exact = try Self.scriptedRange(jitter: false)
        // Without jitter the fit is exact: 10 s of bytes and 25 requests at 0.5 s, in whole seconds.
        #expect(exact.low == exact.high && [.seconds(22), .seconds(23)].contains(exact.low))
        let size = TerminalSize(cols: 100, rows: 30)
        let line = Fixtures.render(snapshot(exact), size: size).line(Layout(size: size).aggregateRow)
        #expect(
            line.contains("ETA " + Formatting.duration(exact.low) + " ")
                || line.hasSuffix(Formatting.duration(exact.low)))
        #expect(!line.contains("–"), "\(line)")

        let wide = EtaRange(low: .seconds(40), high: .seconds(55))
        let ascii = Fixtures.renderer(unicode: false).render(snapshot(wide), UIState(size: size), size: size)
        #expect(ascii.line(Layout(size: size).aggregateRow).contains("ETA 0:40-0:55"))
    }

    @Test("without a range yet the smoothed figure shows; once bytes are out, no ETA at all")
    func fallback() {
        let size = TerminalSize(cols: 100, rows: 30)
        let row = Layout(size: size).aggregateRow
        #expect(Fixtures.render(Fixtures.uploading, size: size).line(row).contains("ETA 0:09"))
        var modeling = Fixtures.modeling
        modeling.progress.etaRange = EtaRange(low: .seconds(3), high: .seconds(5))
        #expect(!Fixtures.render(modeling, size: size).line(row).contains("ETA"))
    }

    @Test("a server that cannot be reached is said in the banner, with how long the run still waits for it")
    func unreachableBanner() throws {
        let exact = try Self.scriptedRange(jitter: false)
        var waiting = snapshot(exact)
        waiting.unreachable = Unreachable(gone: .seconds(12), patienceLeft: .seconds(138))
        let screen = Fixtures.render(waiting, size: TerminalSize(cols: 100, rows: 30))
        #expect(screen.text.contains("Server unreachable — trying it with one request at a time"), "\(screen.text)")
        #expect(screen.text.contains("Gone for 0:12 · the run stops in 2:18 unless it answers"), "\(screen.text)")
    }

    @Test("a batch stopped at a failure says which, what it met, and that R sends the rest once it is mended")
    func stoppedAtFailure() {
        let cause = "the batch stopped at a.jpg's failure"
        var stopped = Fixtures.snapshot([
            Fixtures.file(0, "a.jpg", size: 10, sent: 0, phase: .failed, attempt: 1),
            Fixtures.file(1, "b.jpg", size: 10, sent: 0, phase: .cancelled, attempt: 0),
        ])
        stopped.files[0].error = UploadError(.unauthorized, file: "a.jpg", httpStatus: 401)
        stopped.files[1].error = UploadError(.cancelled, file: "b.jpg", cause: cause)
        stopped.batchStop = BatchStop(file: "a.jpg", error: "HTTP 401 unauthorized (check --token or UPLOADER_TOKEN)")
        let screen = Fixtures.render(stopped, size: TerminalSize(cols: 100, rows: 30)).text
        #expect(screen.contains("Upload stopped at a.jpg: HTTP 401 unauthorized (check --token or UPLOADER_TOKEN)"))
        #expect(screen.contains("The other files would meet it too · 1 failed · 1 cancelled · 0 done"), "\(screen)")
        #expect(screen.contains("Mend it, then press R to send the files not done"))
        #expect(screen.contains("cancelled · the batch stopped at a.jpg"), "the row says why: \(screen)")
        stopped.batchStop?.everyFile = false
        let failFast = Fixtures.render(stopped, size: TerminalSize(cols: 100, rows: 30)).text
        #expect(failFast.contains("--fail-fast stopped the rest · 1 failed · 1 cancelled"), "\(failFast)")
    }
}
