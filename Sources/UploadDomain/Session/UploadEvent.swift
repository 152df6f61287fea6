/// A phase change of one file, in the order it happened; reporters print these.
public struct UploadEvent: Sendable {
    /// Which change this is (NDJSON `event`).
    public enum Kind: String, Sendable {
        case queued, preparing, prepared, started, modeling, verifying, done, failed, cancelled, skipped, retrying
    }

    public var kind: Kind
    public var file: FileSnapshot
    /// For `retrying`: the wait before the next attempt (the backoff, or the server's `Retry-After`).
    public var retryDelay: Duration?

    /// Creates an event.
    public init(kind: Kind, file: FileSnapshot, retryDelay: Duration? = nil) {
        self.kind = kind
        self.file = file
        self.retryDelay = retryDelay
    }
}

/// What a user (keyboard) or a script can ask of a running session.
public enum UploadCommand: Sendable, Equatable {
    case cancel(fileID: Int)
    /// Abort everything now: queued files and transfers in flight end cancelled.
    case cancelAll
    /// Start nothing more and let the transfers in flight finish within the grace period (the first Ctrl-C).
    case stop
    case retry(fileID: Int)
    /// Every file that did not finish, failed or cancelled, goes back in line (`R`).
    case retryUnfinished
    case togglePause(fileID: Int)
    /// The user's width: it also ends `--concurrency auto`.
    case setConcurrency(Int)
    /// `--concurrency auto`'s width, ignored once the user has set one.
    case tuneConcurrency(Int)
    /// Caps the upload rate of all transfers together, in bytes per second; nil removes the cap.
    case setBandwidthLimit(Int64?)
}
