import Foundation
import Testing

/// Ctrl-Z and `fg` from an interactive bash in tmux, with resizes while the screen is stopped.
@Suite("uploader-tui screen suspended and resumed", .serialized)
struct ScreenSuspendTests {
    /// The lines of a capture, the trailing empty ones kept (tmux prints one per row).
    func lines(_ screen: String) -> [Substring] {
        var lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The whole screen redrawn at `cols`x`rows`, with nothing of the shell's text left on it.
    func isWhole(_ screen: String, cols: Int, rows: Int) -> Bool {
        let lines = lines(screen)
        return lines.count == rows && lines.allSatisfy { $0.count <= cols }
            && lines.first?.hasPrefix(" uploader-tui ") == true && lines.last?.contains("q quit") == true
            && !screen.contains("Stopped") && !screen.contains("PROMPT$") && !screen.contains("\u{1B}")
            && lines[1].contains("active") && screen.contains("▸ s0.bin")
    }

    @Test(
        "after Ctrl-Z, a resize and fg the screen is redrawn whole at the new size; on exit the terminal is restored"
    )
    func suspendResizeResume() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("screen-suspend")
        for i in 0..<12 { try folder.write("s\(i).bin", size: 3 << 20, seed: UInt64(i)) }
        let command = [
            ChildProcess.uploaderBinary, folder.path, "--to", server.url("/datasets/suspend/images"), "--bwlimit",
            "512K", "--no-resume",
        ].map { "'\($0)'" }.joined(separator: " ")
        // Job control needs an interactive shell, as a person has: bash itself puts the job in the foreground.
        let tmux = try await TmuxDriver.start(
            command: "env PS1='PROMPT$ ' bash --norc --noprofile -i", cols: 100, rows: 30)
        try await ScreenEndToEndTests.stopping(tmux, server) {
            _ = try await tmux.waitFor { $0.contains("PROMPT$") }
            try await tmux.send("-l", command)
            try await tmux.send("Enter")
            var screen = try await tmux.waitFor { isWhole($0, cols: 100, rows: 30) && $0.contains("uploading") }
            #expect(isWhole(screen, cols: 100, rows: 30), "\(screen)")
            // The old handler raced the curses thread: several rounds, so a torn frame has its chances to show.
            let sizes = [(70, 20), (120, 35), (100, 30), (70, 20), (120, 35), (100, 30)]
            for (cols, rows) in sizes {
                try await tmux.send("C-z")
                _ = try await tmux.waitFor { $0.contains("Stopped") }
                try await tmux.resize(cols: cols, rows: rows)
                try await tmux.send("-l", "fg")
                try await tmux.send("Enter")
                screen = try await tmux.waitFor(timeout: .seconds(5)) { isWhole($0, cols: cols, rows: rows) }
                #expect(isWhole(screen, cols: cols, rows: rows), "after fg at \(cols)x\(rows):\n\(screen)")
                // Still whole a moment later: no late write of the old size lands on it.
                try await Task.sleep(for: .milliseconds(300))
                screen = try await tmux.capture()
                #expect(isWhole(screen, cols: cols, rows: rows), "a moment after fg at \(cols)x\(rows):\n\(screen)")
            }
            // q, y: those in flight finish; q again aborts them. Then the summary, printed by a restored terminal.
            try await tmux.send("q")
            screen = try await tmux.waitFor { $0.contains("Quit?") }
            #expect(screen.contains("Quit?"), "keys reach the screen after fg:\n\(screen)")
            try await tmux.send("y")
            _ = try await tmux.waitFor { $0.contains("Finishing") }
            try await tmux.send("q")
            screen = try await tmux.waitFor(timeout: .seconds(20)) {
                $0.contains("12 files:") && $0.contains("PROMPT$")
            }
            try await tmux.send(
                "-l", "stty -a | tr -s ' ;' '\\n\\n' | grep -x -- '-\\?onlcr\\|-\\?opost' | tr '\\n' ' '")
            try await tmux.send("Enter")
            screen = try await tmux.waitFor { $0.contains("onlcr ") }
            let text = lines(screen)
            let summary = try #require(text.firstIndex { $0.contains("12 files:") }, "\(screen)")
            #expect(text[summary].hasPrefix("12 files: "), "the summary starts at column 0:\n\(screen)")
            #expect(text[summary + 1].hasPrefix("PROMPT$ "), "the prompt starts at column 0:\n\(screen)")
            #expect(screen.contains("opost onlcr "), "the shell's output modes are back:\n\(screen)")
        }
    }
}
