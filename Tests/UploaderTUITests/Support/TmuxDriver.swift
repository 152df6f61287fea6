import Foundation

/// Drives a program in a private tmux server, for end-to-end tests of the real binary.
///
/// Uses its own socket (`tmux -L`), so it never touches the user's tmux; `stop()` kills only that server.
struct TmuxDriver {
    let socket: String
    let session = "tui"

    /// Starts `command` in a detached window of `cols` x `rows`.
    init(command: String, cols: Int = 100, rows: Int = 30, environment: [String: String] = ["LANG": "C.UTF-8", "TERM": "xterm-256color"]) throws {
        socket = "uploader-tui-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var arguments = ["new-session", "-d", "-s", session, "-x", "\(cols)", "-y", "\(rows)"]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { arguments += ["-e", "\(key)=\(value)"] }
        arguments.append(command)
        try tmux(arguments)
    }

    /// Sends keys as tmux names them (`"q"`, `"Enter"`, `"Up"`, `"C-c"`).
    func send(_ keys: String...) throws {
        try tmux(["send-keys", "-t", session] + keys)
    }

    /// The screen as text.
    func capture() throws -> String {
        try tmux(["capture-pane", "-p", "-t", session])
    }

    /// Resizes the window.
    func resize(cols: Int, rows: Int) throws {
        try tmux(["resize-window", "-t", session, "-x", "\(cols)", "-y", "\(rows)"])
    }

    /// Polls the screen until `predicate` holds or `timeout` passes; returns the last screen.
    func waitFor(timeout: Duration = .seconds(10), _ predicate: (String) -> Bool) async throws -> String {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var screen = try capture()
        while !predicate(screen), clock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            screen = try capture()
        }
        return screen
    }

    /// Kills this driver's tmux server (and the program in it).
    func stop() {
        _ = try? tmux(["kill-server"])
    }

    @discardableResult
    private func tmux(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["tmux", "-L", socket] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
