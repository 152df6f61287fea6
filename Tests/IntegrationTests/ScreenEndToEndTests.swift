import Foundation
import Testing

/// The real binary in tmux against the reference server: what a person sees and types.
@Suite("uploader-tui screen in tmux", .serialized)
struct ScreenEndToEndTests {
    static let toastTitles = ["Uploading", "Server is processing", "Upload complete", "Upload failed"]

    /// The toast title on a screen, if one shows.
    func toast(_ screen: String) -> String? {
        Self.toastTitles.first { screen.contains($0) }
    }

    func row(_ screen: String, _ name: String) -> String {
        screen.split(separator: "\n").first { $0.contains(name) }.map(String.init) ?? ""
    }

    @Test(
        "toast runs uploading, processing, done; a file is cancelled and retried from the keyboard; resize keeps the screen whole"
    )
    func fullSession() async throws {
        let server = try await ServerFixture.start {
            $0.modelingDelay = 1.5
            $0.failRate = 0.2
            $0.seed = 7
        }
        let folder = try TestFolder("screen")
        try folder.write("a-big.jpg", size: 6 << 20, seed: 1, prefix: Magic.jpeg)
        for i in 0..<5 { try folder.write("pet-\(i).png", size: 150_000 + i, seed: UInt64(10 + i), prefix: Magic.png) }
        let exitFile = folder.path + ".exit"
        let command = [
            ChildProcess.uploaderBinary, folder.path, "--to", server.url("/datasets/tmux/images"),
            "--limit-rate", "512K", "--concurrency", "2", "--retries", "10", "--journal", folder.path + ".journal",
            "--log-file", folder.path + ".log",
        ].map { "'\($0)'" }.joined(separator: " ")
        let tmux = try await TmuxDriver.start(command: "\(command); echo $? > '\(exitFile)'; sleep 60")
        do {
            try await drive(tmux, server: server, exitFile: exitFile)
        } catch {
            await tmux.stop()
            throw error
        }
        // With a screen, the log still gets every file's story (--log-file, issue 17).
        let log = try String(contentsOfFile: folder.path + ".log", encoding: .utf8)
        let entries = log.split(separator: "\n")
        #expect(
            entries.contains { $0.contains(" warning ") && $0.contains("file=a-big.jpg") && $0.hasSuffix(" cancelled") }
        )
        #expect(entries.contains { $0.contains(" info ") && $0.contains("file=pet-0.png") && $0.contains(" done, ") })
        #expect(log.split(separator: "\n").last?.contains("notice") == true && log.contains("run ended"), "\(log)")
        await tmux.stop()
        await server.stop()
    }

    private func drive(_ tmux: TmuxDriver, server: ServerFixture, exitFile: String) async throws {

        var titles: [String] = []
        func watch(_ timeout: Duration, until predicate: @escaping (String) -> Bool) async throws -> String {
            try await tmux.waitFor(timeout: timeout) { screen in
                if let title = toast(screen), titles.last != title { titles.append(title) }
                return predicate(screen)
            }
        }

        // The first row (selected) is the big file: cancel it while its bytes are on the wire.
        var screen = try await watch(.seconds(20)) { row($0, "a-big.jpg").contains("uploading") }
        #expect(row(screen, "a-big.jpg").contains("uploading"), "\(screen)")
        try await tmux.send("c")
        screen = try await watch(.seconds(10)) { row($0, "a-big.jpg").contains("cancelled") }
        #expect(row(screen, "a-big.jpg").contains("cancelled"), "\(screen)")

        try await tmux.send("r")
        screen = try await watch(.seconds(120)) { $0.contains("Upload complete") }
        #expect(row(screen, "a-big.jpg").contains("done"), "\(screen)")
        #expect(screen.contains("done 6"), "\(screen)")
        #expect(titles.first == "Uploading")
        // However often retries and the cancel bounced the batch, it ends uploading -> processing -> done.
        #expect(
            Array(titles.suffix(3)) == ["Uploading", "Server is processing", "Upload complete"], "\(titles)")
        #expect(!titles.contains("Upload failed") || titles.last == "Upload complete")

        try await tmux.resize(cols: 40, rows: 12)
        // Wait for the redrawn frame (the first capture may catch tmux mid-redraw).
        screen = try await tmux.waitFor {
            $0.contains("Upload complete") && $0.split(separator: "\n").allSatisfy { $0.count <= 40 }
        }
        let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count >= 12, "\(screen)")
        #expect(lines.allSatisfy { $0.count <= 40 }, "\(screen)")
        #expect(screen.contains("Upload complete"), "\(screen)")

        try await tmux.send("q")
        let exited = try await tmux.waitFor { _ in FileManager.default.fileExists(atPath: exitFile) }
        _ = exited
        let status = try String(contentsOfFile: exitFile, encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(status == "0")
        let files = try FileManager.default.contentsOfDirectory(atPath: server.root.path + "/datasets/tmux")
        #expect(files.filter { $0 != "manifest.json" }.count == 6)
    }

    @Test("two Ctrl-C on the screen abort the run; the screen closes, prints the summary and exits 130")
    func secondCtrlC() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("screen-abort")
        for i in 0..<4 { try folder.write("s\(i).bin", size: 2 << 20, seed: UInt64(i)) }
        let command = [
            ChildProcess.uploaderBinary, folder.path, "--to", server.url("/datasets/abort/images"), "--bwlimit", "256K",
            "--no-resume",
        ].map { "'\($0)'" }.joined(separator: " ")
        let tmux = try await TmuxDriver.start(command: "\(command); echo EXIT=$?; sleep 60")
        try await Self.stopping(tmux, server) {
            _ = try await tmux.waitFor { $0.contains("uploading") }
            try await tmux.send("C-c")
            _ = try await tmux.waitFor { $0.contains("Ctrl-C again to abort") }
            try await tmux.send("C-c")
            let after = try await tmux.waitFor { $0.contains("EXIT=") }
            #expect(after.contains("4 files: 0 done, 0 failed, 4 cancelled"), "\(after)")
            #expect(after.contains("EXIT=130"), "\(after)")
        }
    }

    /// Runs `body`, then stops the tmux server and the reference server, whether it threw or not.
    static func stopping(
        _ tmux: TmuxDriver, _ server: ServerFixture, _ body: () async throws -> Void
    ) async throws {
        do {
            try await body()
        } catch {
            await tmux.stop()
            await server.stop()
            throw error
        }
        await tmux.stop()
        await server.stop()
    }

    @Test("a journal that cannot record the run (file size limit) makes a screen's run exit 1, said in its log too")
    func journalFailure() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("screen-journal")
        for i in 0..<400 { try folder.write("f-\(i).bin", size: 100, seed: UInt64(i)) }
        let command = [
            ChildProcess.uploaderBinary, folder.path, "--put", server.url("/files/j/"), "--exit-when-done",
            "--journal", folder.path + ".journal", "--log-file", folder.path + ".log",
        ].map { "'\($0)'" }.joined(separator: " ")
        // The journal is made within the limit; its write-ahead log outgrows it as files are recorded done.
        let limited = "bash -c \"trap '' XFSZ; ulimit -f 150; exec \(command)\""
        let tmux = try await TmuxDriver.start(command: "\(limited); echo EXIT=$?; sleep 60")
        try await Self.stopping(tmux, server) {
            let after = try await tmux.waitFor(timeout: .seconds(60)) { $0.contains("EXIT=") }
            #expect(after.contains("400 files: 400 done"), "\(after)")
            #expect(after.contains("EXIT=1"), "\(after)")
        }
        let log = try String(contentsOfFile: folder.path + ".log", encoding: .utf8)
        let last = try #require(log.split(separator: "\n").last)
        #expect(last.contains(" exit=1 ") && last.contains("run ended"), "\(last)")
        #expect(last.firstMatch(of: try Regex(#"seconds=\d+\.\d{3} "#)) != nil, "\(last)")
    }

    @Test("f filters to the failed files, / finds one by name, y puts its curl command in tmux's buffer (OSC 52)")
    func filterFindCopy() async throws {
        let secret = "s3cr3t-screen-token"
        let server = try await ServerFixture.start {
            $0.failRate = 1
            $0.token = secret
        }
        let folder = try TestFolder("screen-copy")
        for name in ["alpha", "bravo", "charlie"] {
            try folder.write("\(name).png", size: 20_000, seed: 3, prefix: Magic.png)
        }
        let command = [
            ChildProcess.uploaderBinary, folder.path, "--to", server.url("/datasets/copy/images"), "--retries", "0",
            "--journal", folder.path + ".journal",
        ].map { "'\($0)'" }.joined(separator: " ")
        var environment = ["LANG": "C.UTF-8", "TERM": "xterm-256color"]
        environment["UPLOADER_TOKEN"] = secret
        let tmux = try await TmuxDriver.start(command: "\(command); sleep 60", environment: environment)
        try await Self.stopping(tmux, server) {
            try await tmux.setOption("set-clipboard", "on")
            try await driveCopy(tmux, secret: secret)
        }
    }

    private func driveCopy(_ tmux: TmuxDriver, secret: String) async throws {

        var screen = try await tmux.waitFor(timeout: .seconds(60)) { $0.contains("Upload failed") }
        #expect(screen.contains("failed 3"), "\(screen)")
        try await tmux.send("f")
        screen = try await tmux.waitFor { $0.contains("filter: active") }
        #expect(screen.contains("filter: active (0)"), "\(screen)")
        try await tmux.send("f")
        screen = try await tmux.waitFor { $0.contains("filter: failed") }
        #expect(screen.contains("filter: failed (3)"), "\(screen)")

        try await tmux.send("/")
        try await tmux.send("-l", "BRAV")
        screen = try await tmux.waitFor { $0.contains("/BRAV (1)") }
        #expect(screen.contains("/BRAV (1)"), "\(screen)")
        #expect(row(screen, "bravo.png").contains("failed") && !screen.contains("alpha.png"), "\(screen)")
        #expect(screen.contains("failed 3"), "the header counts the whole batch: \(screen)")
        try await tmux.send("Enter")
        try await tmux.send("y")
        screen = try await tmux.waitFor { $0.contains("copied curl command") }
        #expect(screen.contains("copied curl command"), "\(screen)")
        let buffer = try await tmux.waitForBuffer { $0.contains("bravo.png") }
        #expect(buffer.hasPrefix("curl "), "\(buffer)")
        #expect(buffer.contains("bravo.png") && buffer.contains("$UPLOADER_TOKEN"), "\(buffer)")
        #expect(!buffer.contains(secret))

        // The details pane shows the same command as lines a mouse can select.
        try await tmux.send("Enter")
        screen = try await tmux.waitFor { $0.contains("  curl ") }
        let lines = screen.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("  curl ") && $0.hasSuffix("\\") }, "\(screen)")
        #expect(lines.contains { $0.hasPrefix("    -H \"Authorization: Bearer $UPLOADER_TOKEN\" \\") }, "\(screen)")

        try await clicks(tmux)
    }

    /// A press as a terminal reports it in X10 mode, typed into the pane as bytes: `ESC [ M`, then 32 + the button,
    /// 33 + the column and 33 + the row. tmux passes them on as they are. The pane's TERM is tmux's own
    /// `tmux-256color` (tmux sets it over `-e`), whose `kmous` is `\E[M`: ncurses asks for and parses this format.
    /// A button press is followed by its release (button code 3), as a terminal sends them; wheel steps have none.
    private func click(_ tmux: TmuxDriver, x: Int, y: Int, button: Int = 0) async throws {
        var bytes = [0x1B, 0x5B, 0x4D, 32 + button, 33 + x, 33 + y]
        if button < 64 { bytes += [0x1B, 0x5B, 0x4D, 32 + 3, 33 + x, 33 + y] }
        try await tmux.send(["-H"] + bytes.map { String($0, radix: 16) })
    }

    /// A click selects a row, a click on a failed row's error opens its details, the wheel moves the selection.
    private func clicks(_ tmux: TmuxDriver) async throws {
        try await tmux.send("Escape")
        try await tmux.send("Escape")
        var screen = try await tmux.waitFor { $0.contains("filter: failed (3)") && !$0.contains("Esc closes") }
        func lineIndex(_ screen: String, _ name: String) throws -> Int {
            try #require(
                screen.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(name) })
        }
        let charlie = try lineIndex(screen, "charlie.png")
        try await click(tmux, x: 4, y: charlie)
        screen = try await tmux.waitFor { self.row($0, "charlie.png").hasPrefix("▸") }
        #expect(row(screen, "charlie.png").hasPrefix("▸ charlie.png"), "\(screen)")
        #expect(!row(screen, "bravo.png").hasPrefix("▸"), "\(screen)")

        try await click(tmux, x: 4, y: try lineIndex(screen, "charlie.png"), button: 64)
        screen = try await tmux.waitFor { self.row($0, "alpha.png").hasPrefix("▸") }
        #expect(row(screen, "alpha.png").hasPrefix("▸"), "the wheel moved the selection up: \(screen)")

        let bravoRow = row(screen, "bravo.png")
        let errorX = try #require(bravoRow.range(of: "failed ·")).lowerBound.utf16Offset(in: bravoRow)
        try await click(tmux, x: errorX + 2, y: try lineIndex(screen, "bravo.png"))
        screen = try await tmux.waitFor { $0.contains("Esc closes") }
        #expect(row(screen, "│ File").contains("bravo.png"), "\(screen)")
    }
}
