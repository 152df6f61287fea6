import Foundation

/// Drives a program in a private tmux server, for end-to-end tests of the real binary.
///
/// Uses its own socket (`tmux -L`), so it never touches the user's tmux; `stop()` kills only that server.
struct TmuxDriver {
    let socket: String
    let session = "tui"

    /// Starts `command` in a detached window of `cols` x `rows`.
    static func start(
        command: String, cols: Int = 100, rows: Int = 30,
        environment: [String: String] = ["LANG": "C.UTF-8", "TERM": "xterm-256color"]
    ) async throws -> TmuxDriver {
        let driver = TmuxDriver(socket: "uploader-tui-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        var environment = environment
        if environment["XDG_RUNTIME_DIR"] == nil {
            // A screen's run process records itself there: never in the developer's own `uploader-tui ps`.
            let runtime = FileManager.default.temporaryDirectory.appendingPathComponent(driver.socket).path
            try FileManager.default.createDirectory(
                atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            environment["XDG_RUNTIME_DIR"] = runtime
        }
        var arguments = ["new-session", "-d", "-s", driver.session, "-x", "\(cols)", "-y", "\(rows)"]
        for (key, value) in environment.sorted(by: { $0.key < $1.key }) { arguments += ["-e", "\(key)=\(value)"] }
        arguments.append(command)
        try await driver.tmux(arguments)
        return driver
    }

    /// Sends keys as tmux names them (`"q"`, `"Enter"`, `"Up"`, `"C-c"`).
    func send(_ keys: String...) async throws {
        try await send(keys)
    }

    /// Sends keys given as an array (`["-H", "1b", "5b"]` types raw bytes).
    func send(_ keys: [String]) async throws {
        try await tmux(["send-keys", "-t", session] + keys)
    }

    /// The screen as text.
    func capture() async throws -> String {
        try await tmux(["capture-pane", "-p", "-t", session])
    }

    /// Sets a server option (`set-clipboard on`, so OSC 52 from the program lands in a paste buffer).
    func setOption(_ name: String, _ value: String) async throws {
        try await tmux(["set-option", "-s", name, value])
    }

    /// Polls the newest paste buffer until `predicate` holds or `timeout` passes; returns the last one read
    /// (empty while there is none).
    func waitForBuffer(timeout: Duration = .seconds(10), _ predicate: (String) -> Bool) async throws -> String {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var buffer = (try? await tmux(["show-buffer"])) ?? ""
        while !predicate(buffer), clock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            buffer = (try? await tmux(["show-buffer"])) ?? ""
        }
        return buffer
    }

    /// Resizes the window.
    func resize(cols: Int, rows: Int) async throws {
        try await tmux(["resize-window", "-t", session, "-x", "\(cols)", "-y", "\(rows)"])
    }

    /// Polls the screen until `predicate` holds or `timeout` passes; returns the last screen.
    func waitFor(timeout: Duration = .seconds(10), _ predicate: (String) -> Bool) async throws -> String {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var screen = try await capture()
        while !predicate(screen), clock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            screen = try await capture()
        }
        return screen
    }

    /// Kills this driver's tmux server (and the program in it).
    func stop() async {
        _ = try? await tmux(["kill-server"])
    }

    /// Runs the tmux client; its output goes through a file, because the tmux server it may start
    /// inherits the client's stdout and would hold a pipe open forever.
    @discardableResult
    private func tmux(_ arguments: [String]) async throws -> String {
        try await ChildProcess.run("/usr/bin/tmux", ["-L", socket] + arguments).standardOutput
    }
}
