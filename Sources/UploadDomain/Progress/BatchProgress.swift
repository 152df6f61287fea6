/// How many files stand in each phase.
public struct PhaseCounts: Sendable, Equatable {
    public var queued = 0
    public var preparing = 0
    public var willStart = 0
    public var uploading = 0
    public var modeling = 0
    public var verifying = 0
    public var done = 0
    public var failed = 0
    public var cancelled = 0
    public var skipped = 0
    /// Done files whose stored copy was read back and matched (`--verify`); a part of `done`.
    public var verified = 0

    /// Creates empty counts.
    public init() {}

    /// Counts the phases of `phases`.
    public init(_ phases: some Sequence<UploadPhase>) {
        for phase in phases { add(phase) }
    }

    /// Adds one file in `phase`.
    public mutating func add(_ phase: UploadPhase) {
        switch phase {
        case .queued: queued += 1
        case .preparing: preparing += 1
        case .willStart: willStart += 1
        case .uploading: uploading += 1
        case .modeling: modeling += 1
        case .verifying: verifying += 1
        case .done: done += 1
        case .failed: failed += 1
        case .cancelled: cancelled += 1
        case .skipped: skipped += 1
        }
    }

    /// Removes one file in `phase` (the file moved on).
    public mutating func remove(_ phase: UploadPhase) {
        switch phase {
        case .queued: queued -= 1
        case .preparing: preparing -= 1
        case .willStart: willStart -= 1
        case .uploading: uploading -= 1
        case .modeling: modeling -= 1
        case .verifying: verifying -= 1
        case .done: done -= 1
        case .failed: failed -= 1
        case .cancelled: cancelled -= 1
        case .skipped: skipped -= 1
        }
    }

    /// Files with a request in flight.
    public var active: Int { willStart + uploading + modeling + verifying }
    public var total: Int { queued + preparing + active + done + failed + cancelled + skipped }
    /// Files that still have work ahead.
    public var pending: Int { queued + preparing + active }
    /// Files that ended without reaching the server, failed or cancelled: what `R` sends again.
    public var unfinished: Int { failed + cancelled }
}

/// The batch as a whole: bytes, files, rate and time left.
public struct BatchProgress: Sendable, Equatable {
    public var counts: PhaseCounts
    /// Bytes of files done plus bytes sent of files in flight (skipped files excluded).
    public var bytesSent: Int64
    /// Bytes of every file not skipped or cancelled.
    public var bytesTotal: Int64
    /// Over a sliding window.
    public var bytesPerSecond: Double
    /// Smoothed estimate; nil while unknown.
    public var eta: Duration?
    /// The time left as a range from goodput and per-request overhead (`EtaEstimator`); nil while unknown.
    public var etaRange: EtaRange?
    /// Bytes preprocessing took off the prepared images (originals' sizes less the prepared files').
    public var bytesSaved: Int64
    /// Bytes of the cancelled files: not to be sent, yet part of the batch, so a stopped batch's bar is not full.
    public var bytesCancelled: Int64 = 0
    /// Bytes earlier runs sent of the files this one finished (S3 uploads continued from their parts): counted in
    /// `bytesSent`, not in the rate.
    public var bytesCarried: Int64 = 0
    /// The bytes this run sent: what its rate and graph count.
    public var bytesSentThisRun: Int64 { bytesSent - bytesCarried }

    /// Creates progress figures.
    public init(
        counts: PhaseCounts, bytesSent: Int64, bytesTotal: Int64, bytesPerSecond: Double, eta: Duration?,
        bytesSaved: Int64 = 0, etaRange: EtaRange? = nil
    ) {
        self.counts = counts
        self.bytesSent = bytesSent
        self.bytesTotal = bytesTotal
        self.bytesPerSecond = bytesPerSecond
        self.eta = eta
        self.bytesSaved = bytesSaved
        self.etaRange = etaRange
    }

    /// The batch's bytes, the cancelled files' among them: what the bar and "X of Y" count against.
    public var bytesOfBatch: Int64 { bytesTotal + bytesCancelled }

    /// bytesSent / bytesOfBatch, 0...1. With no bytes at all (skipped files count none), complete only when something
    /// was done or skipped: a batch cancelled whole did not complete.
    public var fraction: Double {
        if bytesOfBatch > 0 { return min(1, Double(bytesSent) / Double(bytesOfBatch)) }
        return counts.pending == 0 && counts.done + counts.skipped > 0 ? 1 : 0
    }

    /// Bytes are still to be sent. Once every byte is out, rate and ETA say nothing: the server is the one working.
    public var isSending: Bool { counts.pending > 0 && fraction < 1 }
}
