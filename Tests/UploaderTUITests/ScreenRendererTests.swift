import Testing
import UploadDomain

@testable import UploaderTUI

@Suite("ScreenRenderer")
struct ScreenRendererTests {
    @Test("every toast state at 100x30, 80x24 and 40x12 matches its stored screen", arguments: Fixtures.states.map(\.0))
    func toastSnapshots(state: String) {
        let snapshot = Fixtures.states.first { $0.0 == state }!.1
        for size in Fixtures.sizes {
            expectSnapshot(Fixtures.render(snapshot, size: size), named: "\(state)-\(size)")
        }
    }

    @Test("a selected failed row at every size matches its stored screen")
    func failedRowSnapshots() {
        for size in Fixtures.sizes {
            var state = UIState(size: size, selected: 5)
            state.clamp(fileCount: 8)
            expectSnapshot(Fixtures.render(Fixtures.uploading, size: size, state: state), named: "failed-row-\(size)")
        }
    }

    @Test("ASCII fallback draws only seven-bit characters")
    func asciiFallback() {
        let size = TerminalSize(cols: 100, rows: 30)
        let frame = Fixtures.render(Fixtures.uploading, size: size, unicode: false)
        expectSnapshot(frame, named: "ascii-uploading-\(size)")
        for cell in frame.cells {
            let ascii = cell.character.unicodeScalars.allSatisfy { $0.isASCII }
            #expect(ascii, "non-ASCII \(cell.character)")
        }
        let done = Fixtures.render(Fixtures.done, size: size, unicode: false)
        #expect(done.text.contains("[OK] Upload complete"))
        #expect(done.text.contains("+----"))
    }

    @Test("the toast speaks each of the five states")
    func toastTexts() {
        let size = TerminalSize(cols: 100, rows: 30)
        let texts = Dictionary(
            uniqueKeysWithValues: Fixtures.states.map { ($0.0, Fixtures.render($0.1, size: size).text) })
        #expect(texts["willStart"]!.contains("Uploading"))
        #expect(texts["willStart"]!.contains("Quitting now may interrupt the upload"))
        #expect(texts["uploading"]!.contains("Uploading"))
        #expect(texts["modeling"]!.contains("Server is processing"))
        #expect(texts["done"]!.contains("✔ Upload complete"))
        #expect(texts["fail"]!.contains("Upload failed — press R to retry the files not done"))
        #expect(!texts["done"]!.contains("Quitting now"))
        // Stopped with nothing failed: R sends the cancelled files again, and nothing is complete.
        let cancelled = Fixtures.snapshot(
            [Fixtures.file(0, "a.jpg", size: 10, sent: 0, phase: .cancelled, attempt: 1)])
        let stopped = Fixtures.render(cancelled, size: size).text
        #expect(stopped.contains("Upload stopped — press R to retry the files not done"))
        #expect(!stopped.contains("100%"))
    }

    @Test("a replayed run's toast points to --retry-failed; neither the footer nor the help offers keys it ignores")
    func replayedFail() {
        var snapshot = Fixtures.fail
        snapshot.bandwidthLimit = 10 * Fixtures.mib
        var state = UIState(size: TerminalSize(cols: 100, rows: 30))
        state.isReplay = true
        let text = Fixtures.render(snapshot, size: state.size, state: state).text
        #expect(
            text.contains("Upload failed — run over; retry: uploader-tui ~/Pictures/pet … --retry-failed"), "\(text)")
        #expect(!text.contains("press R") && !text.contains("retry all") && !text.contains("cancel all"), "\(text)")
        // The cap the run ended with.
        #expect(text.contains("limit 10.0 MiB/s"), "\(text)")
        state.pane = .help
        let help = Fixtures.render(snapshot, size: state.size, state: state).text
        #expect(help.contains("show or hide this help") && help.contains("this run has ended"), "\(help)")
        #expect(!help.contains("retry") && !help.contains("speed cap") && !help.contains("pause"), "\(help)")
        // Narrow, the hint takes the subtitle's line.
        let narrow = TerminalSize(cols: 60, rows: 16)
        state.size = narrow
        state.pane = .list
        #expect(Fixtures.render(snapshot, size: narrow, state: state).text.contains("Run over; retry: uploader-tui"))
    }

    @Test(
        "attached alone, the quit question says y cancels the queued files and d leaves the run going; the footer has d"
    )
    func quitQuestionAttached() {
        var state = UIState(size: TerminalSize(cols: 100, rows: 30))
        state.canDetach = true
        let list = Fixtures.render(Fixtures.uploading, size: state.size, state: state).text
        #expect(list.contains("d detach") && list.contains("q quit"), "\(list)")
        state.prompt = .quit
        let asked = Fixtures.render(Fixtures.uploading, size: state.size, state: state).text
        #expect(asked.contains("y cancels the 2 queued files, lets those in flight finish, then quits"), "\(asked)")
        #expect(asked.contains("d leaves the run going without this screen"), "\(asked)")
        // In one process there is nothing to leave going.
        state.canDetach = false
        let single = Fixtures.render(Fixtures.uploading, size: state.size, state: state).text
        #expect(!single.contains("d leaves") && single.contains("any other key stays"), "\(single)")
    }

    @Test("a batch that waits only for paused files says so, and how to resume them; one still moving does not")
    func pausedToast() {
        let size = TerminalSize(cols: 100, rows: 30)
        var files = (0..<3).map { Fixtures.file($0, "f\($0).jpg", size: 10, sent: 10, phase: .done) }
        files.append(Fixtures.file(3, "big.jpg", size: 1000, sent: 990, phase: .uploading, paused: true))
        let one = Fixtures.render(Fixtures.snapshot(files), size: size).text
        #expect(one.contains("1 file paused — p resumes it"), "\(one)")
        #expect(one.contains("The run waits for it: nothing else is moving") && !one.contains("Uploading"))
        files[2] = Fixtures.file(2, "other.jpg", size: 10, sent: 5, phase: .uploading, paused: true)
        #expect(Fixtures.render(Fixtures.snapshot(files), size: size).text.contains("2 files paused"))
        // Another transfer still moves: the batch is uploading.
        let moving = Fixtures.render(Fixtures.uploading, size: size).text
        #expect(moving.contains("Uploading") && !moving.contains("paused —"), "\(moving)")
    }

    @Test("a batch of one file counts it in the singular, wide and narrow")
    func oneFileHeader() {
        let one = Fixtures.snapshot([Fixtures.file(0, "a.jpg", size: 10, sent: 0, phase: .queued, attempt: 0)])
        for size in [TerminalSize(cols: 100, rows: 30), TerminalSize(cols: 40, rows: 12)] {
            let header = Fixtures.render(one, size: size).line(1)
            #expect(!header.contains("1 files"), "\(header)")
        }
        #expect(Fixtures.render(one, size: TerminalSize(cols: 100, rows: 30)).line(1).contains("1 file  queued 1"))
    }

    @Test("a row waiting to retry says why, as a failed row does")
    func retryingRow() {
        let error = UploadError(.httpStatus(503), file: "busy.jpg", httpStatus: 503)
        let snapshot = Fixtures.snapshot([
            Fixtures.file(0, "busy.jpg", size: 10, sent: 0, phase: .queued, attempt: 1, error: error),
            Fixtures.file(1, "next.jpg", size: 10, sent: 0, phase: .uploading),
        ])
        let text = Fixtures.render(snapshot, size: TerminalSize(cols: 100, rows: 30)).text
        #expect(text.contains("retrying · HTTP 503 service unavailable"), "\(text)")
    }

    @Test("the fail toast is red, and colour disappears without colours")
    func failIsRed() {
        let size = TerminalSize(cols: 100, rows: 30)
        let frame = Fixtures.render(Fixtures.fail, size: size)
        let layout = Layout(size: size)
        let x = column(of: "Upload failed", in: frame, row: layout.toastRow + 1)!
        #expect(frame[x, layout.toastRow + 1].style.color == .red)
        let plain = Fixtures.renderer(color: false).render(Fixtures.fail, UIState(size: size), size: size)
        #expect(plain.cells.allSatisfy { $0.style.color == .default })
        #expect(plain.text == frame.text)
    }

    @Test("done shows no bar in the toast, uploading shows one at its fraction")
    func toastBar() {
        let size = TerminalSize(cols: 100, rows: 30)
        let layout = Layout(size: size)
        let done = Fixtures.render(Fixtures.done, size: size)
        #expect(!done.line(layout.toastRow + 3).contains("█"))
        let uploading = Fixtures.render(Fixtures.uploading, size: size)
        let barLine = uploading.line(layout.toastRow + 3)
        let filled = barLine.filter { $0 == "█" }.count
        let width = 100 - 6
        let fraction = Fixtures.uploading.progress.fraction
        #expect(filled == Int(fraction * Double(width)))
    }

    @Test("a name with an escape sequence and CR LF is shown escaped and never raw")
    func escapesControlCharacters() {
        let evil = "evil\u{1B}[31mred\r\n.jpg"
        let files = [
            Fixtures.file(
                0, evil, size: 10, sent: 0, phase: .failed,
                error: UploadError(.requestFailed, file: evil, cause: "boom\u{1B}]0;pwned\u{07}"))
        ]
        let size = TerminalSize(cols: 100, rows: 30)
        for pane in [UIState.Pane.list, .detail] {
            let frame = Fixtures.render(Fixtures.snapshot(files), size: size, state: UIState(size: size, pane: pane))
            #expect(frame.text.contains("evil\\x1B[31mred\\x0D\\x0A.jpg"))
            for cell in frame.cells {
                #expect(!cell.character.unicodeScalars.contains { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) })
            }
        }
        let detail = Fixtures.render(Fixtures.snapshot(files), size: size, state: UIState(size: size, pane: .detail))
        #expect(detail.text.contains("boom\\x1B]0;pwned\\x07"))
    }

    @Test("CJK and emoji names are cut by display width and keep the columns aligned")
    func wideNames() {
        let files = [
            Fixtures.file(
                0, "반려동물-사진-모음-최종본-진짜-최종-2024년-여름.jpg", size: 2 * Fixtures.mib, sent: 0, phase: .queued, attempt: 0),
            Fixtures.file(1, "🐶🐱🐰🦊🐻🐼🐨🐯🦁🐮🐷🐸🐵🐔🐧🐦🐤.png", size: 2 * Fixtures.mib, sent: 0, phase: .queued, attempt: 0),
            Fixtures.file(2, "plain.jpg", size: 2 * Fixtures.mib, sent: 0, phase: .queued, attempt: 0),
        ]
        for size in Fixtures.sizes {
            let frame = Fixtures.render(Fixtures.snapshot(files), size: size)
            let layout = Layout(size: size)
            let percents = (0..<3).map { column(of: "0%", in: frame, row: layout.listTop + $0) }
            #expect(percents[0] != nil)
            #expect(percents[0] == percents[1] && percents[1] == percents[2], "\(size): \(percents)")
            #expect(frame.line(layout.listTop).contains("…"))
            #expect(frame.line(layout.listTop + 1).contains("…"))
        }
    }

    @Test("a terminal below 40x10 shows a notice instead of the screen")
    func tooSmall() {
        for size in [
            TerminalSize(cols: 39, rows: 20), TerminalSize(cols: 80, rows: 9), TerminalSize(cols: 5, rows: 2),
            TerminalSize(cols: 0, rows: 0),
        ] {
            let frame = Fixtures.render(Fixtures.uploading, size: size)
            #expect(frame.size == size)
            if size.rows >= 3, size.cols >= 18 { #expect(frame.text.contains("Terminal too small")) }
        }
        let exact = Fixtures.render(Fixtures.uploading, size: TerminalSize(cols: 40, rows: 10))
        #expect(!exact.text.contains("too small"))
    }

    @Test("every size from 1x1 to 120x40 renders without a crash and fills exactly its size")
    func anySize() {
        for cols in stride(from: 1, through: 120, by: 7) {
            for rows in stride(from: 1, through: 40, by: 3) {
                let size = TerminalSize(cols: cols, rows: rows)
                for (_, snapshot) in Fixtures.states {
                    for pane in [UIState.Pane.list, .detail, .help] {
                        let frame = Fixtures.render(
                            snapshot, size: size, state: UIState(size: size, selected: 5, pane: pane, prompt: .quit))
                        #expect(frame.cells.count == cols * rows)
                    }
                }
            }
        }
    }

    @Test("the detail pane shows path, destination, status, response, attempts, error and curl")
    func detailPane() {
        let size = TerminalSize(cols: 100, rows: 30)
        let frame = Fixtures.render(
            Fixtures.uploading, size: size, state: UIState(size: size, selected: 5, pane: .detail))
        expectSnapshot(frame, named: "detail-failed-\(size)")
        let text = frame.text
        for needle in [
            "/home/ana/Pictures/pet/broken.png", "https://api.example.com/ai/images/42", "HTTP status  500",
            "model queue full", "Attempts     3", "HTTP 500 server error", "curl -sS \\", "-X POST \\",
        ] {
            #expect(text.contains(needle), "missing \(needle)")
        }
    }

    @Test("help and prompts draw over the list")
    func overlays() {
        let size = TerminalSize(cols: 80, rows: 24)
        let help = Fixtures.render(Fixtures.uploading, size: size, state: UIState(size: size, pane: .help))
        #expect(help.text.contains("retry every failed or cancelled file"))
        #expect(!help.text.contains("scroll · Esc closes"), "every key fits at 80x24")
        // At 60x16 the keys that do not fit are not silently left out: the frame says the help scrolls.
        let small = TerminalSize(cols: 60, rows: 16)
        let cut = Fixtures.render(Fixtures.uploading, size: small, state: UIState(size: small, pane: .help)).text
        #expect(cut.contains("↑↓ PgUp PgDn scroll · Esc closes"), "\(cut)")
        let quit = Fixtures.render(Fixtures.uploading, size: size, state: UIState(size: size, prompt: .quit))
        #expect(quit.text.contains("Uploads are still running. Quit? (y/n)"))
        let cancel = Fixtures.render(Fixtures.uploading, size: size, state: UIState(size: size, prompt: .cancelAll))
        #expect(cancel.text.contains("Cancel all 6 pending files? (y/n)"))
    }

    @Test("the header shows the total speed cap beside the concurrency, and the help names [ and ]")
    func bandwidthCap() {
        let size = TerminalSize(cols: 100, rows: 30)
        let capped = Fixtures.snapshot(
            Fixtures.uploading.files, rate: 2_202_009, eta: .seconds(9), bandwidthLimit: 2 << 20)
        let frame = Fixtures.render(capped, size: size)
        expectSnapshot(frame, named: "limited-\(size)")
        #expect(frame.line(1).contains("limit 2.0 MiB/s  concurrency 4"))
        #expect(!Fixtures.render(Fixtures.uploading, size: size).line(1).contains("limit"))
        let help = Fixtures.render(capped, size: size, state: UIState(size: size, pane: .help))
        #expect(help.text.contains("total speed cap down / up (now 2.0 MiB/s)"))
        let uncapped = Fixtures.render(Fixtures.uploading, size: size, state: UIState(size: size, pane: .help))
        #expect(uncapped.text.contains("total speed cap down / up (now none)"))
    }

    @Test("under a cap no row shows more than the cap: a half-second reading above it is the bucket's burst")
    func rowRateWithinCap() {
        let size = TerminalSize(cols: 100, rows: 30)
        // The dog row measured 1.1 MiB/s over its last half second, under a 1 MiB/s cap for all transfers.
        let capped = Fixtures.snapshot(
            Fixtures.uploading.files, rate: 1_048_576, eta: .seconds(9), bandwidthLimit: 1 << 20)
        let row = Fixtures.render(capped, size: size).line(Layout(size: size).listTop + 2)
        #expect(row.contains("dog on the beach") && row.contains("1.0 MiB/s"), "\(row)")
        let uncapped = Fixtures.render(Fixtures.uploading, size: size).line(Layout(size: size).listTop + 2)
        #expect(uncapped.contains("1.1 MiB/s"), "\(uncapped)")
    }

    @Test("a paused row says paused")
    func pausedRow() {
        let size = TerminalSize(cols: 100, rows: 30)
        let frame = Fixtures.render(Fixtures.uploading, size: size)
        let row = frame.line(Layout(size: size).listTop + 3)
        #expect(row.contains("강아지-사진.jpg"))
        #expect(row.contains("paused"))
    }
}
