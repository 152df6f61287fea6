import ArgumentParser
import Foundation
import RunService
import Synchronization
import UploadDomain
import UploaderCLI

/// `uploader-tui ps`: the runs going on in their own processes, and those that ended lately.
struct PsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ps",
        abstract:
            "List running and recently ended runs: id, files done/total, bytes, rate, state, source, destination.",
        discussion: "Exit codes: 0, 2 when the run folder cannot be used, 5 when it belongs to another user.")

    @Flag(help: "One JSON array of runs on stdout, for scripts.")
    var json = false

    /// Ended runs the person has seen are listed this long, then forgotten.
    static let keepEnded: Double = 24 * 3600

    func execute(environment: [String: String]) -> ExitStatus {
        let directory = RunDirectory(environment: environment)
        do {
            try directory.check()
        } catch let error where error.code == .noSuchRun {
            // No folder: no run has started yet.
        } catch {
            return AttachedScreen.fail(error)
        }
        // Asked of every run at once: one slow to answer holds up no other.
        let ids = directory.ids()
        let found = Mutex([RunInfo?](repeating: nil, count: ids.count))
        DispatchQueue.concurrentPerform(iterations: ids.count) { index in
            let info = status(of: ids[index], in: directory)
            found.withLock { $0[index] = info }
        }
        let runs = found.withLock { $0 }.compactMap { $0 }.sorted { $0.started > $1.started }
        if json {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let data = (try? encoder.encode(runs.map(PsEntry.init))) ?? Data("[]".utf8)
            print(String(decoding: data, as: UTF8.self))
            return .success
        }
        guard !runs.isEmpty else {
            print("no runs")
            return .success
        }
        print(
            pad("ID", 6) + pad("STATE", 12) + pad("FILES", 12) + pad("BYTES", 24) + pad("RATE", 13)
                + "SOURCE → DESTINATION")
        for run in runs {
            // Like BYTES, of the files this run sends: those skipped as uploaded before are neither.
            let files = "\(run.done)/\(run.files - run.skipped)"
            let bytes = "\(Format.bytes(run.bytesSent)) of \(Format.bytes(run.bytesTotal))"
            let rate = run.state == "running" ? Format.rate(run.bytesPerSecond) : "-"
            print(
                pad(run.id, 6) + pad(run.state, 12) + pad(files, 12) + pad(bytes, 24) + pad(rate, 13)
                    + Sanitizer.displayName(run.source) + " → " + Sanitizer.displayName(run.destination))
        }
        return .success
    }

    /// The run as it stands: asked of its process while it runs, else read from its record. Dead runs are listed
    /// `gone` once, their records kept for `attach` to tell; ended runs seen long ago are forgotten.
    private func status(of id: String, in directory: RunDirectory) -> RunInfo? {
        guard let record = RunRecord.read(id, in: directory) else { return nil }
        if record.info.state == "gone", !record.hasEnded {
            if let found = record.endedAt, Date().timeIntervalSince1970 - found > Self.keepEnded {
                directory.remove(id)
            }
            return nil
        }
        if record.hasEnded {
            if record.seen, let ended = record.endedAt, Date().timeIntervalSince1970 - ended > Self.keepEnded {
                directory.remove(id)
                return nil
            }
            return record.info
        }
        do {
            return try RunClient.connect(id: id, in: directory, role: .status).info
        } catch  where error.code == .stale || error.code == .noSuchRun {
            if error.code == .stale || RunLookup.isDead(record) { return RunLookup.markGone(record, in: directory) }
            return record.info
        } catch {
            var info = record.info
            info.state = error.code == .suspended ? "suspended" : "unreachable"
            info.bytesPerSecond = 0
            return info
        }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}

/// One run in `ps --json`.
struct PsEntry: Encodable {
    var id: String
    var state: String
    var pid: Int32
    var source: String
    var destination: String
    var started: String
    var files: Int
    var done: Int
    var failed: Int
    var cancelled: Int
    var skipped: Int
    var bytesSent: Int64
    var bytesTotal: Int64
    var bytesPerSecond: Double
    /// Files paused on a screen: a run `paused` waits for them.
    var paused: Int

    init(_ info: RunInfo) {
        id = info.id
        state = info.state
        pid = info.pid
        source = info.source
        destination = info.destination
        started = Date(timeIntervalSince1970: info.started).ISO8601Format()
        files = info.files
        done = info.done
        failed = info.failed
        cancelled = info.cancelled
        skipped = info.skipped
        bytesSent = info.bytesSent
        bytesTotal = info.bytesTotal
        bytesPerSecond = info.bytesPerSecond
        paused = info.paused ?? 0
    }
}
