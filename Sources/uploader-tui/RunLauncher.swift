import CRunService
import Foundation
import RunService
import UploadData
import UploaderCLI
import UploaderTUI

/// Starts the run process of an interactive run (issue 18) and makes this process its first screen.
///
/// The run process is this executable again (`/proc/self/exe`, spawned: no `fork` in a threaded process) with the
/// hidden `_serve-run ID` command, in a session of its own so the terminal's hang-up never reaches it; its standard
/// error goes to the run's log beside its socket. The arguments as typed, a `--token` among them, travel in its
/// environment (readable by this user alone), never on its command line.
struct RunLauncher {
    /// The arguments as typed: the run process parses them again, profiles included, and checks and scans.
    let arguments: [String]
    /// `--detach`: no screen; say how to attach and return.
    let detach: Bool
    let directory: RunDirectory

    /// The descriptor on which the run process says it listens (a pipe the launcher reads).
    static let readyDescriptor: Int32 = 3

    /// Starts the run; with `--detach` prints how to attach and returns, else shows its screen until it ends or is
    /// left.
    /// - Throws: `UsageError` when the process cannot start.
    func start() async throws -> ExitStatus {
        let id = directory.newID()
        let (pid, ready) = try spawn(id: id, directory: directory)
        // One byte once the socket listens; the end of the pipe without it means the run process exited first.
        var byte: UInt8 = 0
        var n: Int
        repeat { n = read(ready, &byte, 1) } while n < 0 && errno == EINTR
        close(ready)
        guard n == 1 else {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            var said = (try? String(contentsOfFile: directory.logPath(id), encoding: .utf8)) ?? ""
            let signal = status & 0x7F
            if said.isEmpty {
                let how = signal == 0 ? "exited with status \((status >> 8) & 0xFF)" : "was killed by signal \(signal)"
                said = "uploader-tui: the run process \(how) before it was ready; nothing was sent\n"
            }
            FileHandle.standardError.write(Data(said.utf8))
            directory.remove(id)
            let code = signal == 0 ? (status >> 8) & 0xFF : 128 + signal
            return ExitStatus(rawValue: code) ?? .someFailed
        }
        if detach {
            print("detached; uploader-tui attach \(id)")
            return .success
        }
        return await AttachedScreen(id: id, directory: directory).run()
    }

    /// The launcher of `upload` when it is interactive (or `--detach`) and this user's run folder can be used; nil
    /// when it runs in this process: headless, or with a screen and a warning when the folder is unusable.
    /// - Throws: `UsageError` for `--detach` without a usable run folder.
    static func forInteractive(_ upload: UploadCommand, environment: [String: String]) throws -> RunLauncher? {
        guard upload.detach || (!upload.isHeadless(environment: environment) && (try? TUIApp.checkTerminal()) != nil)
        else { return nil }
        let directory = RunDirectory(environment: environment)
        do throws(RunServiceError) {
            try directory.prepare()
        } catch {
            guard upload.detach else {
                FileHandle.standardError.write(
                    Data("uploader-tui: warning: \(error); the run stays in this process\n".utf8))
                return nil
            }
            throw UsageError(description: error.description)
        }
        return RunLauncher(
            arguments: Array(CommandLine.arguments.dropFirst()), detach: upload.detach, directory: directory)
    }

    /// Tells the launcher, in the run process, that the socket listens.
    static func signalReady() {
        var info = stat()
        guard fstat(readyDescriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFIFO else { return }
        var byte: UInt8 = 1
        _ = write(readyDescriptor, &byte, 1)
        close(readyDescriptor)
    }

    private func spawn(id: String, directory: RunDirectory) throws -> (pid_t, Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw UsageError(description: "cannot start the run process: \(String(cString: strerror(errno)))")
        }
        // Neither end may leak into another child; the run process gets the write end as descriptor 3 (dup2 clears
        // the flag there).
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 2, directory.logPath(id), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, fds[1], Self.readyDescriptor)
        // Nothing else: holding the terminal (or a test server's sockets) would tie the run to them.
        _ = crs_spawn_closefrom(&actions, Self.readyDescriptor + 1)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The run starts with clean signals, in a session of its own.
        posix_spawnattr_setflags(&attributes, SpawnSignals.reset(&attributes) | crs_spawn_setsid_flag())

        var environment = ProcessInfo.processInfo.environment
        let encoded = try? JSONSerialization.data(withJSONObject: arguments)
        environment[ServeRunCommand.argumentsVariable] = encoded.map { String(decoding: $0, as: UTF8.self) }
        let words: [String] = [CommandLine.arguments.first ?? "uploader-tui", "_serve-run", id]
        let argv = words.map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/proc/self/exe", &actions, &attributes, argv, envp)
        close(fds[1])
        guard spawned == 0 else {
            close(fds[0])
            throw UsageError(description: "cannot start the run process: \(String(cString: strerror(spawned)))")
        }
        return (pid, fds[0])
    }
}
