import UploadDomain

/// `UploadSnapshot` on the wire. `rows` holds the files that changed since the previous snapshot sent on the same
/// connection (all of them when `full`), each with its position in the list.
public struct WireSnapshot: Codable, Sendable, Equatable {
    /// Files in the batch.
    public var fileCount: Int
    /// True when `rows` holds every file.
    public var full: Bool
    public var rows: [WireFile]
    public var progress: WireProgress
    public var toast: WireToast
    public var concurrency: Int
    /// `--concurrency auto` still sets the width.
    public var concurrencyIsAuto: Bool
    public var transfersInFlight: Int
    public var bandwidthLimit: Int64?
    public var isIdle: Bool
    public var elapsedMilliseconds: Int64
    /// Present while the batch winds down after a stop; `graceLeftMilliseconds` may still be absent.
    public var stopping: WireStop?
    /// Present while the server cannot be reached.
    public var unreachable: WireUnreachable?
    /// Present once the batch stopped at a failure every file would meet.
    public var batchStop: WireBatchStop?
    /// Screens attached to the run, the receiver among them: with others watching, `q` leaves the run going.
    public var screens: Int?

    /// The wire form of `snapshot`, carrying the rows at `changed` (every row when nil).
    public init(_ snapshot: UploadSnapshot, changed: [Int]? = nil) {
        fileCount = snapshot.files.count
        full = changed == nil
        rows = (changed ?? Array(snapshot.files.indices)).map { WireFile(snapshot.files[$0], index: $0) }
        progress = WireProgress(snapshot.progress)
        toast = WireToast(snapshot.toast)
        concurrency = snapshot.concurrency
        concurrencyIsAuto = snapshot.concurrencyIsAuto
        transfersInFlight = snapshot.transfersInFlight
        bandwidthLimit = snapshot.bandwidthLimit
        isIdle = snapshot.isIdle
        elapsedMilliseconds = snapshot.elapsed.milliseconds
        stopping = snapshot.stopping.map { WireStop(graceLeftMilliseconds: $0.graceLeft?.milliseconds) }
        unreachable = snapshot.unreachable.map {
            WireUnreachable(
                goneMilliseconds: $0.gone.milliseconds, patienceLeftMilliseconds: $0.patienceLeft.milliseconds)
        }
        batchStop = snapshot.batchStop.map { WireBatchStop(file: $0.file, error: $0.error, everyFile: $0.everyFile) }
    }

    /// Applies this snapshot to the files a client holds (`files` is replaced when `full`).
    /// - Parameter curl: the `curl` command text of the file at an index (fetched when first shown).
    /// - Returns: nil when the rows do not fit (a delta for a list of another length): the client must reconnect.
    public func applied(to files: [FileSnapshot], curl: (Int) -> LazyText) -> UploadSnapshot? {
        var files = full ? [] : files
        if full {
            files.reserveCapacity(fileCount)
            for row in rows {
                guard row.index == files.count else { return nil }
                files.append(row.domain(curl: curl(row.index)))
            }
        } else {
            guard files.count == fileCount else { return nil }
            for row in rows {
                guard files.indices.contains(row.index) else { return nil }
                files[row.index] = row.domain(curl: curl(row.index))
            }
        }
        guard files.count == fileCount else { return nil }
        var snapshot = UploadSnapshot(
            files: files, progress: progress.domain, toast: toast.domain, concurrency: concurrency,
            concurrencyIsAuto: concurrencyIsAuto, transfersInFlight: transfersInFlight, isIdle: isIdle,
            elapsed: .milliseconds(elapsedMilliseconds),
            stopping: stopping.map { StopState(graceLeft: $0.graceLeftMilliseconds.map { .milliseconds($0) }) },
            bandwidthLimit: bandwidthLimit)
        snapshot.unreachable = unreachable.map {
            Unreachable(
                gone: .milliseconds($0.goneMilliseconds), patienceLeft: .milliseconds($0.patienceLeftMilliseconds))
        }
        snapshot.batchStop = batchStop.map {
            BatchStop(file: $0.file, error: $0.error, everyFile: $0.everyFile ?? true)
        }
        return snapshot
    }

    /// Indices of the rows of `new` that differ from `old` (every index when the lengths differ: then send it full).
    public static func changedRows(from old: [FileSnapshot], to new: [FileSnapshot]) -> [Int]? {
        guard old.count == new.count else { return nil }
        return new.indices.filter { old[$0] != new[$0] }
    }
}

/// A stop in progress.
public struct WireStop: Codable, Sendable, Equatable {
    public var graceLeftMilliseconds: Int64?
}

/// A server that cannot be reached (`Unreachable`).
public struct WireUnreachable: Codable, Sendable, Equatable {
    public var goneMilliseconds: Int64
    public var patienceLeftMilliseconds: Int64
}

/// The failure a batch stopped at (`BatchStop`).
public struct WireBatchStop: Codable, Sendable, Equatable {
    public var file: String
    public var error: String
    /// Absent means true.
    public var everyFile: Bool?
}

/// `BatchProgress` on the wire.
public struct WireProgress: Codable, Sendable, Equatable {
    /// Files per phase, by `UploadPhase` raw value, plus `verified`.
    public var counts: [String: Int]
    public var bytesSent: Int64
    public var bytesTotal: Int64
    public var bytesPerSecond: Double
    public var etaMilliseconds: Int64?
    /// The ETA as a range (`EtaRange`), when there is one.
    public var etaLowMilliseconds: Int64?
    public var etaHighMilliseconds: Int64?
    public var bytesSaved: Int64
    public var bytesCancelled: Int64?
    public var bytesCarried: Int64?

    init(_ progress: BatchProgress) {
        let c = progress.counts
        counts = [
            "queued": c.queued, "preparing": c.preparing, "willStart": c.willStart, "uploading": c.uploading,
            "modeling": c.modeling, "verifying": c.verifying, "done": c.done, "failed": c.failed,
            "cancelled": c.cancelled, "skipped": c.skipped, "verified": c.verified,
        ]
        bytesSent = progress.bytesSent
        bytesTotal = progress.bytesTotal
        bytesPerSecond = progress.bytesPerSecond.isFinite ? progress.bytesPerSecond : 0
        etaMilliseconds = progress.eta?.milliseconds
        etaLowMilliseconds = progress.etaRange?.low.milliseconds
        etaHighMilliseconds = progress.etaRange?.high.milliseconds
        bytesSaved = progress.bytesSaved
        bytesCancelled = progress.bytesCancelled
        bytesCarried = progress.bytesCarried > 0 ? progress.bytesCarried : nil
    }

    var domain: BatchProgress {
        var c = PhaseCounts()
        c.queued = counts["queued"] ?? 0
        c.preparing = counts["preparing"] ?? 0
        c.willStart = counts["willStart"] ?? 0
        c.uploading = counts["uploading"] ?? 0
        c.modeling = counts["modeling"] ?? 0
        c.verifying = counts["verifying"] ?? 0
        c.done = counts["done"] ?? 0
        c.failed = counts["failed"] ?? 0
        c.cancelled = counts["cancelled"] ?? 0
        c.skipped = counts["skipped"] ?? 0
        c.verified = counts["verified"] ?? 0
        var progress = BatchProgress(
            counts: c, bytesSent: bytesSent, bytesTotal: bytesTotal, bytesPerSecond: bytesPerSecond,
            eta: etaMilliseconds.map { .milliseconds($0) }, bytesSaved: bytesSaved,
            etaRange: etaLowMilliseconds.flatMap { low in
                etaHighMilliseconds.map { EtaRange(low: .milliseconds(low), high: .milliseconds($0)) }
            })
        progress.bytesCancelled = bytesCancelled ?? 0
        progress.bytesCarried = bytesCarried ?? 0
        return progress
    }
}

/// `Toast` on the wire: its state's name (`willStart`, `uploading`, `modeling`, `done`, `fail`) and figures.
public struct WireToast: Codable, Sendable, Equatable {
    public var state: String
    public var fraction: Double?
    public var failed: Int?
    public var cancelled: Int?

    init(_ toast: Toast) {
        state = toast.name
        switch toast {
        case .uploading(let fraction): self.fraction = fraction.isFinite ? fraction : 0
        case .fail(let failed, let cancelled):
            self.failed = failed
            self.cancelled = cancelled
        case .willStart, .modeling, .done: break
        }
    }

    var domain: Toast {
        switch state {
        case "uploading": .uploading(fraction: fraction ?? 0)
        case "modeling": .modeling
        case "done": .done
        case "fail": .fail(failed: failed ?? 0, cancelled: cancelled ?? 0)
        default: .willStart
        }
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
