import Foundation
import UploadDomain

/// The `--no-tui` front: human lines on stderr, and NDJSON events on stdout with `--json`.
public actor HeadlessReporter {
    /// Where lines go; tests collect them in memory.
    public struct Output: Sendable {
        public var standardOutput: @Sendable (String) -> Void
        public var standardError: @Sendable (String) -> Void
        /// Writes what the output holds back.
        public var flush: @Sendable () -> Void

        /// Creates an output.
        public init(
            standardOutput: @escaping @Sendable (String) -> Void, standardError: @escaping @Sendable (String) -> Void,
            flush: @escaping @Sendable () -> Void = {}
        ) {
            self.standardOutput = standardOutput
            self.standardError = standardError
            self.flush = flush
        }

        /// The process's stdout and stderr, buffered: the reporter flushes at least every
        /// `HeadlessReporter.flushInterval` while events come, and at the end.
        public static let process: Output = {
            let output = OutputBuffer(descriptor: STDOUT_FILENO)
            let error = OutputBuffer(descriptor: STDERR_FILENO)
            return Output(
                standardOutput: output.append, standardError: error.append,
                flush: {
                    output.flush()
                    error.flush()
                })
        }()
    }

    /// The longest a line waits in the buffer while events keep coming; the ticker flushes the rest.
    public static let flushInterval: Duration = .milliseconds(100)

    private let json: Bool
    /// `--quiet`: of the human lines, only failures and the summary.
    private let quiet: Bool
    private let output: Output
    private let clock: any UploadClock
    private var lastProgressLine: Duration?
    private var lastFlush: Duration = .zero
    private var lastFileProgress: [Int: (time: Duration, sent: Int64)] = [:]
    /// Files queued or retrying whose `started` is not yet written (NDJSON).
    private var awaitingStart: Set<Int> = []
    /// The width last reported in NDJSON, so a `concurrency` event marks each change.
    private var lastWidth: (width: Int, auto: Bool)?
    /// Set by `summary`: the summary is the last line, so a late tick writes nothing after it.
    private var summarized = false
    private var finished = 0
    /// Entries of the folders that are not files of the batch, counted in the summary's `left_out`.
    private var leftOutCount = 0

    /// Creates a reporter; `json` adds NDJSON on stdout, `quiet` keeps only failures and the summary on stderr.
    public init(json: Bool, quiet: Bool = false, output: Output = .process, clock: any UploadClock = SystemClock()) {
        self.json = json
        self.quiet = quiet
        self.output = output
        self.clock = clock
    }

    /// Prints a line of the user's own (a scan note, the fallback notice).
    public func note(_ text: String) {
        guard !quiet else { return }
        output.standardError("note: " + text)
        flush()
    }

    /// Says, as it happens and even under `--quiet`, that the journal stopped recording: a long run should not
    /// learn at its end that its work will be sent again.
    public func journalFailed(_ text: String) {
        output.standardError("uploader-tui: warning: \(text); the run goes on, but a rerun sends again what it does")
        flush()
    }

    /// With `--json`, the `concurrency` event of the width the batch starts with: before any file's event, so a script
    /// knows it before the first `started`. `progress` reports each change after it.
    public func starting(_ snapshot: UploadSnapshot) {
        guard json else { return }
        reportWidthChange(snapshot)
        flush()
    }

    /// Writes a `concurrency` event when the width (or whether it is automatic) differs from the last one written.
    private func reportWidthChange(_ snapshot: UploadSnapshot) {
        guard lastWidth.map({ $0 != (snapshot.concurrency, snapshot.concurrencyIsAuto) }) ?? true else { return }
        lastWidth = (snapshot.concurrency, snapshot.concurrencyIsAuto)
        var line = JSONLine()
        line.add("event", "concurrency")
        line.add("concurrency", snapshot.concurrency)
        line.add("auto", rawJSON: snapshot.concurrencyIsAuto ? "true" : "false")
        line.add("bytes_per_second", snapshot.progress.bytesPerSecond)
        line.addNow("ts")
        output.standardOutput(line.text)
    }

    /// Accounts for the folders' entries the scan made no file of: with `--json`, a `skipped` event each, marked
    /// `left_out`, before any file's events, so a script can account for every entry from NDJSON alone. Stderr has
    /// their notes already, a line a kind.
    public func leftOut(_ entries: [LeftOutEntry]) {
        leftOutCount += entries.count
        guard json, !entries.isEmpty else { return }
        for entry in entries { output.standardOutput(Self.ndjson(entry)) }
        flush()
    }

    /// The `skipped` event of an entry left out by the scan: no size, request or destination to speak of.
    static func ndjson(_ entry: LeftOutEntry) -> String {
        var line = JSONLine()
        line.add("event", "skipped")
        line.add("file", entry.path)
        line.add("phase", UploadPhase.skipped.rawValue)
        line.add("reason", entry.reason)
        line.add("left_out", rawJSON: "true")
        line.addNow("ts")
        return line.text
    }

    /// Says once that the batch stops, and how many uploads it lets finish.
    public func stopping(_ snapshot: UploadSnapshot) {
        let active = snapshot.progress.counts.active
        if active == 0 || snapshot.isIdle {
            output.standardError("stopping: nothing in flight")
        } else if let left = snapshot.stopping?.graceLeft, left <= .zero {
            output.standardError("aborting \(active == 1 ? "1 upload" : "\(active) uploads") (--grace 0)")
        } else {
            let uploads = active == 1 ? "1 upload" : "\(active) uploads"
            let limit = snapshot.stopping?.graceLeft.map { " (at most " + Format.duration($0) + ")" } ?? ""
            output.standardError("finishing \(uploads)\(limit) — Ctrl-C again to abort")
        }
        flush()
    }

    /// Writes the lines held back.
    private func flush() {
        lastFlush = clock.now
        output.flush()
    }

    /// Reports phase changes in order: one call for many, as each call is a hop to the reporter.
    public func handle(_ events: ArraySlice<UploadEvent>, total: Int) {
        for event in events { handle(event, total: total) }
    }

    /// Reports one phase change.
    public func handle(_ event: UploadEvent, total: Int) {
        if json {
            switch event.kind {
            case .queued, .retrying: awaitingStart.insert(event.file.id)
            case .started: awaitingStart.remove(event.file.id)
            default: break
            }
            output.standardOutput(ndjson(event.kind.rawValue, event.file, retryDelay: event.retryDelay))
        }
        if event.kind == .done || event.kind == .cancelled || event.kind == .skipped || event.kind == .failed {
            finished += 1
        }
        guard !quiet || event.kind == .failed else { return }
        switch event.kind {
        case .queued, .preparing, .started, .modeling, .verifying:
            // No line: three events of four a file, so the name is not sanitised for nothing.
            if clock.now - lastFlush >= Self.flushInterval { flush() }
            return
        case .done, .failed, .cancelled, .skipped, .retrying, .prepared:
            break
        }
        let file = event.file
        let name = Sanitizer.displayName(file.name)
        switch event.kind {
        case .done:
            let location = file.result?.location.map { " " + Sanitizer.displayName($0) } ?? ""
            let mediaID = file.result?.mediaID.map { " mediaID=" + Sanitizer.displayName($0) } ?? ""
            let status = file.httpStatus.map { " HTTP \($0)" } ?? ""
            let verified = file.result?.verified == nil ? "" : " verified"
            let parts = file.result?.partsResent ?? 0
            let resent = parts == 0 ? "" : parts == 1 ? ", 1 part sent again" : ", \(parts) parts sent again"
            output.standardError(
                "[\(finished)/\(total)] done      \(name) (\(Format.bytes(file.size))\(resent))\(status)\(location)"
                    + mediaID + verified)
        case .failed:
            // The cause may quote the server's words: escaped like a name before it reaches the terminal.
            let error = file.error.map { Sanitizer.displayName($0.forFile(file.name).description) } ?? "\(name): failed"
            output.standardError("[\(finished)/\(total)] failed    \(error)")
        case .cancelled:
            let kept = file.error?.cause.map { " (" + Sanitizer.displayName($0) + ")" } ?? ""
            output.standardError("[\(finished)/\(total)] cancelled \(name)\(kept)")
        case .skipped:
            let reason = Sanitizer.displayName(file.skipReason ?? "already uploaded")
            output.standardError("[\(finished)/\(total)] skipped   \(name) (\(reason))")
        case .retrying:
            let cause = Sanitizer.displayName(file.error?.summary ?? "error")
            // A wait long enough to wonder about (a server's Retry-After) is said.
            let wait = event.retryDelay.flatMap { $0 >= .seconds(2) ? ", again in " + Format.duration($0) : nil } ?? ""
            output.standardError("retrying  \(name) after attempt \(file.attempt): \(cause)\(wait)")
        case .prepared:
            if let p = file.preparation {
                let renamed = p.remoteName == file.name ? "" : " → " + Sanitizer.displayName(p.remoteName)
                output.standardError(
                    "prepared  \(name)\(renamed) \(p.width)×\(p.height), \(Format.bytes(p.originalSize)) → "
                        + Format.bytes(p.size))
            }
        case .queued, .preparing, .started, .modeling, .verifying:
            break
        }
        if clock.now - lastFlush >= Self.flushInterval { flush() }
    }

    /// Throttled progress: one human line a second while uploads run, and per-file NDJSON `progress` events; then
    /// writes what is held back, so the ticker bounds how long a line waits.
    public func progress(_ snapshot: UploadSnapshot) {
        guard !summarized else { return }
        defer { flush() }
        let now = clock.now
        let range = snapshot.progress.etaRange
        if json {
            reportWidthChange(snapshot)
            // By index: only the rows in flight are copied out, not every row of a long queue at every tick.
            for index in snapshot.files.indices {
                let phase = snapshot.files[index].phase
                guard phase == .uploading || phase == .willStart else { continue }
                let file = snapshot.files[index]
                // The snapshot can be ahead of the events: an attempt's progress follows its `started`.
                guard !awaitingStart.contains(file.id) else { continue }
                let last = lastFileProgress[file.id]
                guard last == nil || (now - last!.time >= .seconds(1) && last!.sent != file.sent) else { continue }
                lastFileProgress[file.id] = (now, file.sent)
                output.standardOutput(ndjson("progress", file, eta: snapshot.progress.isSending ? range : nil))
            }
        }
        if !quiet, let unreachable = snapshot.unreachable, snapshot.stopping == nil {
            // Every few seconds: between its retrying lines, the run says what it waits for and for how long.
            guard lastProgressLine.map({ now - $0 >= .seconds(5) }) ?? true else { return }
            lastProgressLine = now
            output.standardError(
                "server unreachable for \(Format.duration(unreachable.gone)): one request at a time tries it; the run "
                    + "stops in \(Format.duration(unreachable.patienceLeft)) unless it answers")
            return
        }
        // The first line waits a second after uploads start, like rclone's: at once, one sample made the rate 0 B/s.
        guard !quiet, snapshot.progress.counts.active > 0 else { return }
        guard let last = lastProgressLine, now - last >= .seconds(1) else {
            if lastProgressLine == nil { lastProgressLine = now }
            return
        }
        lastProgressLine = now
        let p = snapshot.progress
        let percent = Int(p.fraction * 100)
        let rate = p.isSending ? ", " + Format.rate(p.bytesPerSecond) : ""
        // Stopping, the grace period is what is left; the batch's ETA no longer applies.
        let eta =
            p.isSending && snapshot.stopping == nil
            ? (range.map { ", ETA " + Format.range($0) } ?? p.eta.map { ", ETA " + Format.timeLeft($0) } ?? "") : ""
        let state = snapshot.toast == .modeling ? "server processing" : "uploading"
        // Skipped files are neither to send nor in the bytes: counted apart.
        let skipped = p.counts.skipped > 0 ? " (\(p.counts.skipped) skipped)" : ""
        output.standardError(
            "\(state): \(p.counts.done)/\(p.counts.total - p.counts.skipped) files done\(skipped), "
                + "\(Format.bytes(p.bytesSent)) of \(Format.bytes(p.bytesOfBatch)) (\(percent)%)\(rate)\(eta)")
    }

    /// The closing summary line (and NDJSON `summary`).
    /// - Parameter journalError: Why the journal could not record the run, when it could not: said before the
    ///   summary, and in its NDJSON line.
    public func summary(_ snapshot: UploadSnapshot, exitCode: Int32, journalError: String? = nil) {
        summarized = true
        let p = snapshot.progress
        let c = p.counts
        let totals = Totals(snapshot)
        let earlier = totals.carried > 0 ? ", \(Format.bytes(totals.carried)) of it sent by an earlier run" : ""
        let saved = p.bytesSaved > 0 ? ", \(Format.bytes(p.bytesSaved)) saved by preparing" : ""
        let verified = c.verified > 0 ? " (\(c.verified) verified)" : ""
        let files = c.total == 1 ? "1 file" : "\(c.total) files"
        if let journalError { output.standardError("uploader-tui: warning: \(journalError)") }
        if let stop = snapshot.batchStop, c.cancelled > 0 {
            let rest =
                stop.everyFile ? "the other files would meet it too: mend it, then" : "--fail-fast stopped the rest:"
            output.standardError(
                "stopped at \(Sanitizer.displayName(stop.file)): \(Sanitizer.displayName(stop.error)); \(rest) run again "
                    + "with --retry-failed")
        }
        output.standardError(
            "\(files): \(c.done) done\(verified), \(c.failed) failed, \(c.cancelled) cancelled, \(c.skipped) skipped"
                + " — \(Format.bytes(totals.doneBytes)) in \(Format.duration(snapshot.elapsed)) "
                + "(\(Format.rate(totals.rate))\(earlier))" + saved
        )
        defer { flush() }
        guard json else { return }
        output.standardOutput(summaryLine(snapshot, totals, exitCode: exitCode, journalError: journalError))
    }

    /// With `--json`, the lines of a run that found nothing to send (exit 3), so it ends with a summary as every
    /// run does: the width it would have started with, the entries left out, and a summary of no files with the
    /// `reason` (`nothing to upload in pics`). Stderr says it elsewhere.
    public func nothingToSend(
        concurrency: Int, auto: Bool, leftOut entries: [LeftOutEntry], reason: String, exitCode: Int32
    ) {
        guard json else { return }
        let none = BatchProgress(counts: PhaseCounts(), bytesSent: 0, bytesTotal: 0, bytesPerSecond: 0, eta: nil)
        let snapshot = UploadSnapshot(
            files: [], progress: none, toast: .willStart, concurrency: concurrency, concurrencyIsAuto: auto,
            isIdle: true, elapsed: .zero)
        starting(snapshot)
        leftOut(entries)
        summarized = true
        output.standardOutput(
            summaryLine(snapshot, Totals(snapshot), exitCode: exitCode, journalError: nil, reason: reason))
        flush()
    }

    /// The bytes and rate a summary reports.
    private struct Totals {
        /// The bytes of the files done, an earlier run's share among them.
        var doneBytes: Int64 = 0
        /// The bytes of S3 uploads an earlier run had sent: counted done, not in the rate.
        var carried: Int64
        var seconds: Double
        var rate: Double

        init(_ snapshot: UploadSnapshot) {
            // A sum over the rows, not a filtered copy of them: with 10,000 files that copy was the run's largest
            // allocation.
            for file in snapshot.files where file.phase == .done { doneBytes += file.size }
            carried = min(doneBytes, snapshot.progress.bytesCarried)
            seconds = Format.seconds(snapshot.elapsed)
            rate = seconds > 0 ? Double(doneBytes - carried) / seconds : 0
        }
    }

    /// The NDJSON `summary`.
    private func summaryLine(
        _ snapshot: UploadSnapshot, _ totals: Totals, exitCode: Int32, journalError: String?, reason: String? = nil
    ) -> String {
        let p = snapshot.progress
        let c = p.counts
        var line = JSONLine()
        line.add("event", "summary")
        line.add("files", c.total)
        line.add("done", c.done)
        line.add("failed", c.failed)
        line.add("cancelled", c.cancelled)
        line.add("skipped", c.skipped)
        line.add("left_out", leftOutCount)
        if c.verified > 0 { line.add("verified", c.verified) }
        line.add("bytes", totals.doneBytes)
        line.add("bytes_saved", p.bytesSaved)
        if totals.carried > 0 { line.add("bytes_carried", totals.carried) }
        line.add("seconds", totals.seconds)
        line.add("bytes_per_second", totals.rate)
        if let limit = snapshot.bandwidthLimit { line.add("bwlimit", limit) }
        line.add("concurrency", snapshot.concurrency)
        line.add("exit_code", Int(exitCode))
        if let reason { line.add("reason", reason) }
        if let journalError { line.add("journal_error", journalError) }
        line.add("peak_rss_bytes", Self.peakResidentBytes())
        if snapshot.files.contains(where: { $0.result?.mediaID != nil }) {
            let mediaIDs = snapshot.files.map { $0.result?.mediaID }
            // Input order, null for files without one: seed 000 reports IDs in the order asked.
            let items = mediaIDs.map { $0.map(JSONLine.quote) ?? "null" }.joined(separator: ",")
            line.add("media_ids", rawJSON: "[" + items + "]")
        }
        line.addNow("ts")
        return line.text
    }

    private func ndjson(
        _ event: String, _ file: FileSnapshot, eta: EtaRange? = nil, retryDelay: Duration? = nil
    ) -> String {
        var line = JSONLine()
        line.add("event", event)
        line.add("file", file.name)
        line.add("phase", file.phase.rawValue)
        line.add("bytes_sent", file.sent)
        line.add("bytes_total", file.size)
        line.add("http_status", file.httpStatus)
        if let result = file.result {
            line.add("result", rawJSON: result.isJSON ? result.body : JSONLine.quote(result.body))
        } else {
            line.add("result", nil as String?)
        }
        line.add("location", file.result?.location)
        // Only with --verify, once the stored copy matched: the digest both sides agree on.
        if let verified = file.result?.verified { line.add("verified", verified) }
        if let resent = file.result?.partsResent, resent > 0 { line.add("parts_resent", resent) }
        line.add("error", file.error.map { $0.forFile(file.name).description })
        if let reason = file.skipReason { line.add("reason", reason) }
        if let preparation = file.preparation {
            line.add("width", preparation.width)
            line.add("height", preparation.height)
            line.add("bytes_before", preparation.originalSize)
            line.add("bytes_after", preparation.size)
            line.add("sent_as", preparation.remoteName)
        }
        line.add("attempt", file.attempt)
        if let retryDelay {
            let seconds = Double(retryDelay.components.seconds) + Double(retryDelay.components.attoseconds) / 1e18
            line.add("retry_in_s", (seconds * 1000).rounded() / 1000)
        }
        // The batch's time left, in whole seconds as the screen shows it.
        if let eta {
            line.add("eta_low_s", Int(eta.low.components.seconds))
            line.add("eta_high_s", Int(eta.high.components.seconds))
        }
        line.add("destination", file.destination)
        line.addNow("ts")
        return line.text
    }

    /// The process's peak resident set (VmHWM in /proc/self/status), in bytes.
    static func peakResidentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kib = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return nil }
        return kib * 1024
    }

    /// UTC with milliseconds, e.g. `2026-11-22T08:40:01.123Z`.
    static func timestamp() -> String {
        String(unsafeUninitializedCapacity: 24) { text in
            JSONLine.writeNow(to: text.baseAddress!)
            return 24
        }
    }
}
