import Foundation
import UploadData

/// Runs a program to completion with posix_spawn, its output collected through files.
struct ChildProcess {
    struct Outcome {
        var status: Int32
        var standardOutput: String
        var standardError: String
    }

    /// A started child: signal it, then wait for its outcome.
    final class Running: @unchecked Sendable {
        // @unchecked: every field is set before the child is handed out and never changes.
        let pid: pid_t
        private let folder: URL

        fileprivate init(pid: pid_t, folder: URL) {
            self.pid = pid
            self.folder = folder
        }

        func signal(_ number: Int32) {
            kill(pid, number)
        }

        /// What the child has written to standard output so far.
        var standardOutputSoFar: String {
            (try? String(contentsOfFile: folder.path + "/out", encoding: .utf8)) ?? ""
        }

        /// What the child has written to standard error so far (it flushes its lines at least every 100 ms).
        var standardErrorSoFar: String {
            (try? String(contentsOfFile: folder.path + "/err", encoding: .utf8)) ?? ""
        }

        /// Waits for the exit on a thread of its own and collects the output.
        func wait() async -> Outcome {
            await withCheckedContinuation { continuation in
                Thread { continuation.resume(returning: self.waitBlocking()) }.start()
            }
        }

        private func waitBlocking() -> Outcome {
            defer { try? FileManager.default.removeItem(at: folder) }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let exitStatus = (status & 0x7F) == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
            return Outcome(
                status: exitStatus,
                standardOutput: (try? String(contentsOfFile: folder.path + "/out", encoding: .utf8)) ?? "",
                standardError: (try? String(contentsOfFile: folder.path + "/err", encoding: .utf8)) ?? "")
        }
    }

    /// Runs `executable` with `arguments` to its end, waiting on a thread of its own, so waiting never blocks
    /// the concurrency pool that in-process servers need (there are only as many threads as cores).
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> Outcome {
        try await start(executable, arguments, environment: environment).wait()
    }

    /// Starts `executable`. Its journal and config folder are its own unless the arguments or `environment` name
    /// others, so children running side by side never share the default journal, nor read the user's profiles.
    static func start(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:]
    ) throws -> Running {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let outPath = folder.appendingPathComponent("out").path
        let errPath = folder.appendingPathComponent("err").path

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        // Inherit nothing else: a tmux server started here outlives the call, and holding a copy of an
        // in-process test server's sockets would keep them open after that server stops.
        closeFrom(&actions, 3)

        var env = ProcessInfo.processInfo.environment
        env["CI"] = nil
        env["UPLOADER_TOKEN"] = nil
        env["XDG_STATE_HOME"] = folder.appendingPathComponent("state").path
        // No profiles file unless a test writes one: the developer's ~/.config must not change what tests run.
        env["XDG_CONFIG_HOME"] = folder.appendingPathComponent("config").path
        env["UPLOADER_PROFILE"] = nil
        for (key, value) in environment { env[key] = value }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        // Start as from a shell: the spawning thread's blocked signals (Dispatch blocks most) and ignored ones
        // would be inherited, and a tmux server or its pane could then never be stopped by a signal.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, SpawnSignals.reset(&attributes))
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            try? FileManager.default.removeItem(at: folder)
            throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL)
        }
        return Running(pid: pid, folder: folder)
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), which Swift does not import.
    private static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
        else {
            preconditionFailure("glibc 2.34 or newer is needed to spawn children without leaking descriptors")
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest)
    }

    /// The built `uploader-tui`: `$UPLOADER_BIN/uploader-tui`, else the debug build beside the sources.
    static var uploaderBinary: String {
        if let folder = ProcessInfo.processInfo.environment["UPLOADER_BIN"] { return folder + "/uploader-tui" }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/uploader-tui").path
    }
}
