/// Why `attach`, `ps`, `stop` or a run's socket cannot go on.
public struct RunServiceError: Error, Sendable, Equatable {
    /// What went wrong.
    public enum Code: Sendable, Equatable {
        /// No run has this ID (or no run at all when none was named).
        case noSuchRun
        /// The run has ended and its end was already seen.
        case ended
        /// The run's process is gone without ending the run (killed with -9): its socket was stale and is removed.
        case stale
        /// The socket or the folder belongs to another user, or the run refused this user.
        case otherUser
        /// The run speaks another version of the protocol.
        case versionMismatch
        /// The connection to the run broke (the run process died while a screen was attached).
        case lost
        /// The run folder cannot be made or is not safe (not ours, open to others).
        case folderUnusable
        /// Connecting failed for another reason (the cause says which).
        case connectFailed
        /// The run's process is stopped (SIGSTOP, Ctrl-Z in the terminal it was started from): it answers nobody.
        case suspended
    }

    public var code: Code
    /// The run's ID, when one is concerned.
    public var id: String?
    /// The specifics: a path, an errno text, the versions.
    public var detail: String?

    /// Creates an error.
    public init(_ code: Code, id: String? = nil, detail: String? = nil) {
        self.code = code
        self.id = id
        self.detail = detail
    }
}

// MARK: - Description

extension RunServiceError: CustomStringConvertible {
    /// One line: the run, the cause and what to do.
    public var description: String {
        let run = id.map { "run \($0)" } ?? "run"
        let detail = detail.map { " (\($0))" } ?? ""
        switch code {
        case .noSuchRun:
            return id == nil
                ? "no run to attach to; `uploader-tui ps` lists the runs"
                : "no run \(id ?? "") here; `uploader-tui ps` lists the runs"
        case .ended:
            return "\(run) has ended\(detail); `uploader-tui history` shows its outcome"
        case .stale:
            // Said again at each attach or stop: the socket was removed by the first.
            return "\(run) is gone: its process was killed\(detail); its stale socket is removed. Run the same command "
                + "again to resume from the journal"
        case .otherUser:
            return "\(run) belongs to another user\(detail); refused"
        case .versionMismatch:
            return "\(run) speaks another protocol\(detail); use the uploader-tui that started it"
        case .lost:
            return "lost \(run)\(detail); run the same command again to resume from the journal"
        case .folderUnusable:
            return "cannot use the run folder\(detail)"
        case .connectFailed:
            return "cannot connect to \(run)\(detail)"
        case .suspended:
            return "\(run) is suspended\(detail); it goes on once resumed (kill -CONT, or fg in its terminal)"
        }
    }
}
