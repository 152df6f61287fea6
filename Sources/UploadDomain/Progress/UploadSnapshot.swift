/// Everything a front end needs to draw one frame; a value, so it can be rendered anywhere.
public struct UploadSnapshot: Sendable {
    public var files: [FileSnapshot]
    public var progress: BatchProgress
    public var toast: Toast
    /// Requests allowed in flight.
    public var concurrency: Int
    /// `--concurrency` is `auto` and the user has not set a width since.
    public var concurrencyIsAuto: Bool
    /// Requests in flight now (S3 parts each count).
    public var transfersInFlight: Int
    /// The cap on the upload rate of all transfers together, bytes per second; nil for none.
    public var bandwidthLimit: Int64?
    /// Nothing queued, running or waiting to retry.
    public var isIdle: Bool
    /// Time since the session started; once it is idle, the time it took (to its last file's end).
    public var elapsed: Duration
    /// Set once the batch was asked to stop (Ctrl-C, `q`): nothing new starts, the transfers in flight finish.
    public var stopping: StopState?
    /// Set while the server cannot be reached.
    public var unreachable: Unreachable?
    /// Set once the batch stopped at a failure every file would meet, until a retry takes it up again.
    public var batchStop: BatchStop?

    /// Creates a snapshot.
    public init(
        files: [FileSnapshot], progress: BatchProgress, toast: Toast, concurrency: Int, concurrencyIsAuto: Bool = false,
        transfersInFlight: Int = 0, isIdle: Bool, elapsed: Duration, stopping: StopState? = nil,
        bandwidthLimit: Int64? = nil
    ) {
        self.concurrencyIsAuto = concurrencyIsAuto
        self.transfersInFlight = transfersInFlight
        self.bandwidthLimit = bandwidthLimit
        self.files = files
        self.progress = progress
        self.toast = toast
        self.concurrency = concurrency
        self.isIdle = isIdle
        self.elapsed = elapsed
        self.stopping = stopping
    }
}

extension UploadSnapshot {
    /// Files whose transfer the user paused (`p`).
    public var pausedFiles: Int { files.count { $0.isPaused } }

    /// The batch moves no further until a paused file is resumed: one is paused, and nothing else is being sent,
    /// prepared or waiting to retry (a batch that is stopping or whose server is gone says that instead).
    public var waitsOnPaused: Bool {
        guard !isIdle, stopping == nil, unreachable == nil, progress.counts.preparing == 0 else { return false }
        var paused = false
        for file in files {
            if file.isPaused {
                paused = true
            } else if file.phase.isActive || (file.phase == .queued && file.attempt > 0 && file.error != nil) {
                return false
            }
        }
        return paused
    }
}

/// An image as preprocessing left it.
public struct Preparation: Sendable, Equatable {
    /// The original's size in bytes.
    public var originalSize: Int64
    /// The prepared file's size and pixels.
    public var size: Int64
    public var width: Int
    public var height: Int
    /// The name it is sent under (a converted file's extension changes).
    public var remoteName: String

    /// Creates a preparation record.
    public init(originalSize: Int64, size: Int64, width: Int, height: Int, remoteName: String) {
        self.originalSize = originalSize
        self.size = size
        self.width = width
        self.height = height
        self.remoteName = remoteName
    }
}

/// A server that cannot be reached: one request at a time tries it.
public struct Unreachable: Sendable, Equatable {
    /// How long it has been gone.
    public var gone: Duration
    /// How long the run still waits for it before it stops.
    public var patienceLeft: Duration

    /// Creates the state.
    public init(gone: Duration, patienceLeft: Duration) {
        self.gone = gone
        self.patienceLeft = patienceLeft
    }
}

/// The failure a batch stopped at: the files it cancelled would have met it too.
public struct BatchStop: Sendable, Equatable {
    /// The file that met it (relative path, raw).
    public var file: String
    /// What it met, without the file's name (`HTTP 401 unauthorized (check --token or UPLOADER_TOKEN)`).
    public var error: String
    /// The other files would meet it too; false when `--fail-fast` stopped the batch at any failure.
    public var everyFile: Bool

    /// Creates the state.
    public init(file: String, error: String, everyFile: Bool = true) {
        self.file = file
        self.error = error
        self.everyFile = everyFile
    }

    /// A server's message cut for the stop's line, keeping a hint after its last dash whole (S3's `pass --region
    /// eu-west-1`): that is what to mend, and the file's own line has scrolled away among hundreds.
    public static func shortened(_ message: String, limit: Int = 100) -> String {
        guard message.count > limit else { return message }
        guard let dash = message.ranges(of: " \u{2014} ").last else {
            return message.prefix(limit) + "\u{2026}"
        }
        let hint = message[dash.upperBound...]
        return message[..<dash.lowerBound].prefix(max(20, limit - hint.count)) + "\u{2026} \u{2014} " + hint
    }
}

/// A batch winding down after a stop.
public struct StopState: Sendable, Equatable {
    /// Time left before the transfers still in flight are aborted; nil when none was in flight at the stop.
    public var graceLeft: Duration?

    /// Creates a stop state.
    public init(graceLeft: Duration?) {
        self.graceLeft = graceLeft
    }
}

/// One file's row: what it is, where it goes and how far it got.
public struct FileSnapshot: Sendable, Identifiable, Equatable {
    public var id: Int
    /// Relative path, raw (front ends sanitise before display).
    public var name: String
    public var path: String
    public var destination: String
    /// A `curl` command reproducing the request, secrets as environment variables; built on first read.
    public var curlCommand: String { curlCommandText.text }
    private var curlCommandText: LazyText
    public var size: Int64
    public var sent: Int64
    public var phase: UploadPhase
    public var attempt: Int
    public var isPaused: Bool
    public var bytesPerSecond: Double
    public var httpStatus: Int?
    // What most rows have none of is kept out of line: a row is copied into every snapshot and event.
    public var result: UploadResult? {
        get { resultBox?.value }
        set { resultBox = newValue.map(Boxed.init) }
    }
    public var error: UploadError? {
        get { errorBox?.value }
        set { errorBox = newValue.map(Boxed.init) }
    }
    /// Why a skipped file was not sent ("already uploaded", a link not followed); nil for the others.
    public var skipReason: String?
    /// What preprocessing made of the file, once it is prepared (`size` is then the prepared file's).
    public var preparation: Preparation? {
        get { preparationBox?.value }
        set { preparationBox = newValue.map(Boxed.init) }
    }
    // The session hands its own boxes over: a row is rebuilt at every snapshot it changes in.
    var resultBox: Boxed<UploadResult>?
    var errorBox: Boxed<UploadError>?
    var preparationBox: Boxed<Preparation>?

    /// Creates a row.
    public init(
        id: Int, name: String, path: String, destination: String, curlCommand: LazyText = LazyText { "" },
        size: Int64, sent: Int64,
        phase: UploadPhase,
        attempt: Int, isPaused: Bool = false, bytesPerSecond: Double = 0, httpStatus: Int? = nil,
        result: UploadResult? = nil, error: UploadError? = nil, skipReason: String? = nil,
        preparation: Preparation? = nil
    ) {
        self.id = id
        self.name = name
        self.path = path
        self.destination = destination
        self.curlCommandText = curlCommand
        self.size = size
        self.sent = sent
        self.phase = phase
        self.attempt = attempt
        self.isPaused = isPaused
        self.bytesPerSecond = bytesPerSecond
        self.httpStatus = httpStatus
        self.result = result
        self.error = error
        self.skipReason = skipReason
        self.preparation = preparation
    }

    /// Sent / size, 0...1 (an empty file that is done counts as 1).
    public var fraction: Double {
        if size == 0 { return [.done, .modeling, .verifying].contains(phase) ? 1 : 0 }
        return min(1, Double(sent) / Double(size))
    }
}
