import Foundation

/// `/bin/sh -c COMMAND` in a process group of its own, its output collected, and at the deadline the whole group
/// killed: Foundation's `Process` signals the shell alone, and a child holding the pipes (a `pass` waiting on a
/// pinentry, a `sleep`) kept the run waiting long after the time it was given.
enum ShellCommand {
    enum Ending: Equatable {
        case exited(Int32)
        case signalled(Int32)
        case timedOut
        /// Killed because nobody waits for it any more (`cancelled` said so).
        case cancelled
    }

    struct Outcome {
        var ending: Ending
        var standardOutput: [UInt8]
        var standardError: [UInt8]
    }

    struct SpawnError: Error {
        let reason: String
    }

    /// Most bytes kept of each stream; more is read and dropped, so the command never blocks on a full pipe.
    static let keep = 1 << 20

    static func run(
        _ command: String, timeout: Double, cancelled: () -> Bool = { false }
    ) throws(SpawnError) -> Outcome {
        var out: [Int32] = [-1, -1]
        var err: [Int32] = [-1, -1]
        guard pipe(&out) == 0, pipe(&err) == 0 else {
            for fd in out + err where fd >= 0 { close(fd) }
            throw SpawnError(reason: String(cString: strerror(errno)))
        }
        // Another child spawned meanwhile must not hold them: the command's output would never end.
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, SpawnSignals.reset(&attributes) | Int16(POSIX_SPAWN_SETPGROUP))
        let words: [String] = ["/bin/sh", "-c", command]
        let argv = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, environ)
        close(out[1])
        close(err[1])
        defer {
            close(out[0])
            close(err[0])
        }
        guard spawned == 0 else { throw SpawnError(reason: String(cString: strerror(spawned))) }

        var outcome = Outcome(ending: .exited(0), standardOutput: [], standardError: [])
        var open = [out[0], err[0]]
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(0, timeout) * 1e9)
        var status: Int32 = 0
        // Once the shell is gone, what it left running in the background may hold the pipes: read a moment more.
        var exitedAt: UInt64?
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            let now = DispatchTime.now().uptimeNanoseconds
            if exitedAt == nil, waitpid(pid, &status, WNOHANG) == pid { exitedAt = now }
            if let exitedAt, now >= exitedAt + 200_000_000 { break }
            if now >= deadline || cancelled() {
                kill(-pid, SIGKILL)
                outcome.ending = now >= deadline ? .timedOut : .cancelled
                break
            }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let waitMs = Int32(min(50, (deadline - now) / 1_000_000 + 1))
            guard poll(&fds, nfds_t(fds.count), waitMs) >= 0 || errno == EINTR else { break }
            for entry in fds where entry.revents != 0 {
                let count = read(entry.fd, &buffer, buffer.count)
                if count > 0 {
                    if entry.fd == out[0] {
                        if outcome.standardOutput.count < keep { outcome.standardOutput += buffer[0..<count] }
                    } else if outcome.standardError.count < keep {
                        outcome.standardError += buffer[0..<count]
                    }
                } else if count == 0 || errno != EINTR {
                    open.removeAll { $0 == entry.fd }
                }
            }
        }
        if exitedAt == nil {
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        guard outcome.ending != .timedOut else { return outcome }
        outcome.ending = status & 0x7F == 0 ? .exited((status >> 8) & 0xFF) : .signalled(status & 0x7F)
        return outcome
    }
}
