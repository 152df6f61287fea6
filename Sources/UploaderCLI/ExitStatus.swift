import UploadDomain

/// The documented exit codes, the same for headless and TUI runs.
public enum ExitStatus: Int32, Sendable {
    /// Every file done or skipped.
    case success = 0
    /// Some files failed or were cancelled.
    case someFailed = 1
    /// Usage or configuration error; nothing was sent.
    case usage = 2
    /// Nothing to upload.
    case nothingToUpload = 3
    /// `attach`, `stop`: no such run, it has ended, or its process is gone (a stale socket, removed).
    case noSuchRun = 4
    /// `attach`, `ps`, `stop`: the run belongs to another user or speaks another protocol version.
    case refused = 5
    /// Interrupted (SIGINT/SIGTERM).
    case interrupted = 130

    /// The status a finished batch ends with.
    public init(counts: PhaseCounts, interrupted: Bool) {
        if interrupted {
            self = .interrupted
        } else if counts.failed + counts.cancelled + counts.pending > 0 {
            self = .someFailed
        } else {
            self = .success
        }
    }
}
