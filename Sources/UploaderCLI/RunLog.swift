import Foundation
import Logging
import UploadDomain

/// `--log-file`: a run's story for whoever investigates it later — its start and end, and every file's phases,
/// retries and failures. Made of what the screen shows: names, statuses, redacted destinations; never a token.
public struct RunLog: Sendable {
    /// Why the log cannot be opened, for a one-line usage error.
    public struct OpenError: Error, CustomStringConvertible {
        public let description: String
    }

    private let logger: Logger

    /// Opens `path` for appending, keeping the entries of `level` (debug, info, warning, error) and above.
    public static func open(path: String, level: String) throws(OpenError) -> RunLog {
        let handler = try FileLogHandler.open(path: path, level: try threshold(level))
        return RunLog(logger: Logger(label: "uploader-tui") { _ in handler })
    }

    /// The level `--log-level` names, checked whether or not there is a `--log-file` to write.
    public static func threshold(_ level: String) throws(OpenError) -> Logger.Level {
        guard let threshold = Logger.Level(rawValue: level), ![.trace, .notice, .critical].contains(threshold) else {
            throw OpenError(
                description: "--log-level takes debug, info, warning or error, not '\(Sanitizer.displayName(level))'")
        }
        return threshold
    }

    private init(logger: Logger) {
        self.logger = logger
    }

    /// The run begins.
    public func started(source: String, destination: String, files: Int) {
        logger.notice(
            "run started: \(files == 1 ? "1 file" : "\(files) files")",
            metadata: ["source": "\(source)", "destination": "\(Redactor.url(destination))"])
    }

    /// One file's phase change.
    public func handle(_ event: UploadEvent) {
        let file = event.file
        var metadata: Logger.Metadata = ["file": "\(file.name)"]
        if file.attempt > 0 { metadata["attempt"] = "\(file.attempt)" }
        // A failure's or a retry's status too, for grep http=5 alike.
        if event.kind == .done || event.kind == .failed || event.kind == .retrying, let status = file.httpStatus {
            metadata["http"] = "\(status)"
        }
        switch event.kind {
        case .queued, .preparing:
            logger.debug("\(event.kind.rawValue)", metadata: metadata)
        case .started:
            logger.debug("started", metadata: metadata)
        case .modeling:
            logger.debug("sent, waiting for the server's answer", metadata: metadata)
        case .verifying:
            logger.debug("reading back what the server stored", metadata: metadata)
        case .prepared:
            let p = file.preparation
            logger.info(
                "prepared \(p.map { "\($0.width)x\($0.height), \($0.originalSize) → \($0.size) bytes" } ?? "")",
                metadata: metadata)
        case .done:
            if let location = file.result?.location { metadata["location"] = "\(Redactor.url(location))" }
            if let verified = file.result?.verified { metadata["verified"] = "\(verified)" }
            if let resent = file.result?.partsResent, resent > 0 { metadata["parts_resent"] = "\(resent)" }
            logger.info("done, \(file.size) bytes", metadata: metadata)
        case .retrying:
            logger.warning("retrying: \(file.error?.summary ?? "error")", metadata: metadata)
        case .failed:
            logger.error("failed: \(file.error?.forFile(file.name).description ?? "unknown error")", metadata: metadata)
        case .cancelled:
            logger.warning("cancelled", metadata: metadata)
        case .skipped:
            logger.info("skipped: \(file.skipReason ?? "already uploaded")", metadata: metadata)
        }
    }

    /// The run ends with `snapshot`'s counts.
    public func finished(_ snapshot: UploadSnapshot, exitCode: Int32) {
        let c = snapshot.progress.counts
        logger.notice(
            "run ended: \(c.done) done, \(c.failed) failed, \(c.cancelled) cancelled, \(c.skipped) skipped",
            metadata: ["exit": "\(exitCode)", "seconds": "\(String(format: "%.3f", Format.seconds(snapshot.elapsed)))"])
    }
}
