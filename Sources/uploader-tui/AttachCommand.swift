import ArgumentParser
import Foundation
import RunService
import UploadDomain
import UploaderCLI
import UploaderTUI

/// `uploader-tui attach [RUN]`: the live screen of a run that goes on in its own process.
struct AttachCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "attach",
        abstract: "Show the screen of a running (or just ended) run; the newest when none is named.",
        discussion: """
            Exit codes: the run's own when it ends while attached, 0 after d, 2 usage, 4 no such run (unknown, \
            ended, or killed: its stale socket is removed), 5 refused (another user's run, another protocol \
            version).
            """)

    @Argument(
        help: ArgumentHelp("The run's ID, as `ps` lists it.", valueName: "run"),
        completion: .custom { _, _, _ in RunLookup.completing(includingUnseenEnds: true) })
    var run: String?

    func execute(environment: [String: String]) async throws -> ExitStatus {
        let directory = RunDirectory(environment: environment)
        let id: String
        do {
            try directory.check()
            id = try run.map(RunLookup.checked) ?? RunLookup.newest(in: directory)
        } catch let error as RunServiceError {
            return AttachedScreen.fail(error)
        }
        // What cannot be attached is said first, so scripts get it without a terminal too.
        let record = RunRecord.read(id, in: directory)
        guard record != nil || FileManager.default.fileExists(atPath: directory.socketPath(id)) else {
            return AttachedScreen.fail(RunServiceError(.noSuchRun, id: id))
        }
        let last = record.flatMap { $0.hasEnded && !$0.seen ? RunRecord.readLast(id, in: directory) : nil }
        if let record, record.hasEnded, last == nil {
            return AttachedScreen.fail(RunServiceError(.ended, id: id, detail: RunLookup.ending(record)))
        }
        if let problem = RunLookup.gone(id, in: directory) { return AttachedScreen.fail(problem) }
        do {
            try TUIApp.checkTerminal()
        } catch {
            // Nothing falls back to plain progress here: `ps` shows where the run stands.
            let cause = (error as? TerminalUnavailable)?.cause ?? "\(error)"
            throw UsageError(description: "attach needs a terminal: \(cause); uploader-tui ps shows the run's progress")
        }
        if var record, record.hasEnded {
            let commands = last?.curlCommands ?? []
            let curl = { (row: Int) in LazyText { commands.indices.contains(row) ? commands[row] : "" } }
            guard let last, let snapshot = last.snapshot.applied(to: [], curl: curl) else {
                return AttachedScreen.fail(RunServiceError(.ended, id: id, detail: RunLookup.ending(record)))
            }
            record.seen = true
            try? record.write(in: directory)
            RunRecord.removeLast(id, in: directory)
            return await EndedScreen(record: record, snapshot: snapshot, rates: last.rates).run()
        }
        return await AttachedScreen(id: id, directory: directory).run()
    }
}

/// Finding runs by ID.
enum RunLookup {
    /// `id` when it is a run ID.
    /// - Throws: `UsageError` for anything else, so no path is ever built from it.
    static func checked(_ id: String) throws -> String {
        // IDs are written in lower case; one typed in upper case (`AA59`) names the same run.
        let id = id.lowercased()
        guard RunDirectory.isValid(id) else {
            throw UsageError(
                description: "'\(Sanitizer.displayName(id))' is not a run ID (hex digits, as `uploader-tui ps` lists)")
        }
        return id
    }

    /// The IDs a shell completes: the runs still running, newest first, and those ended and not yet seen when
    /// `includingUnseenEnds`.
    static func completing(includingUnseenEnds: Bool) -> [String] {
        let directory = RunDirectory(environment: ProcessInfo.processInfo.environment)
        return directory.ids().compactMap { RunRecord.read($0, in: directory) }
            .filter { $0.info.state != "gone" && (!$0.hasEnded || (includingUnseenEnds && !$0.seen)) }
            .sorted { $0.info.started > $1.info.started }.map(\.info.id)
    }

    /// The newest run still running, or ended and not yet seen. A run already told `gone` is not one: its record
    /// stays a day to say so when named, and must not hide the runs there are.
    /// - Throws: `RunServiceError.noSuchRun` when there is none.
    static func newest(in directory: RunDirectory) throws(RunServiceError) -> String {
        let candidates = directory.ids().compactMap { RunRecord.read($0, in: directory) }
            .filter { (!$0.hasEnded && $0.info.state != "gone") || ($0.hasEnded && !$0.seen) }
        guard let newest = candidates.max(by: { $0.info.started < $1.info.started }) else {
            throw RunServiceError(.noSuchRun)
        }
        return newest.info.id
    }

    /// The run's process is dead though its record says it runs (killed with -9), or `ps` found it so: its socket
    /// goes, and its record stays, marked `gone`, so that every `attach` and `stop` says so until `ps` forgets it a
    /// day later, as it forgets ended runs.
    static func gone(_ id: String, in directory: RunDirectory) -> RunServiceError? {
        guard let record = RunRecord.read(id, in: directory), !record.hasEnded else { return nil }
        if record.info.state != "gone" {
            guard isDead(record) else { return nil }
            _ = markGone(record, in: directory)
        }
        return RunServiceError(.stale, id: id, detail: "pid \(record.info.pid)")
    }

    /// Whether the process of a run that has not ended is dead.
    static func isDead(_ record: RunRecord) -> Bool {
        kill(record.info.pid, 0) != 0 && errno == ESRCH
    }

    /// `ps` lists a dead run once: its socket and snapshot go, and its record stays, marked `gone`, so that `attach`
    /// and `stop` still say what became of it.
    /// - Returns: the run as `ps` lists it.
    static func markGone(_ record: RunRecord, in directory: RunDirectory) -> RunInfo {
        var record = record
        record.info.state = "gone"
        record.info.bytesPerSecond = 0
        // When it was found gone: the record is forgotten a day later.
        record.endedAt = Date().timeIntervalSince1970
        let id = record.info.id
        for path in [directory.socketPath(id), directory.lastPath(id), directory.logPath(id)] { unlink(path) }
        if (try? record.write(in: directory)) == nil { directory.remove(id) }
        return record.info
    }

    /// "done at 12:03, exit 0": the local time on a 24-hour clock, whatever the locale.
    static func ending(_ record: RunRecord) -> String {
        let time = record.endedAt.map { clock.string(from: Date(timeIntervalSince1970: $0)) }
        return "\(record.info.state)\(time.map { " at \($0)" } ?? ""), exit \(record.exitCode ?? 0)"
    }

    private static var clock: DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        formatter.dateFormat = "HH:mm"
        return formatter
    }
}

/// The last screen of a run that ended while nobody watched: shown once, with its toast.
struct EndedScreen {
    let record: RunRecord
    let snapshot: UploadSnapshot
    /// The graph's last minute.
    let rates: [Double]

    func run() async -> ExitStatus {
        FileHandle.standardOutput.write(Data("\u{7}".utf8))
        var configuration = TUIConfiguration(source: record.info.source, destination: record.info.destination)
        configuration.recentRates = RateHistory(samples: rates)
        configuration.isReplay = true
        do {
            _ = try await TUIApp.run(session: FixedController(final: snapshot), configuration: configuration)
        } catch {
            FileHandle.standardError.write(Data("uploader-tui: \(error)\n".utf8))
        }
        let status = ExitStatus(rawValue: record.exitCode ?? 1) ?? .someFailed
        await HeadlessReporter(json: false).summary(snapshot, exitCode: status.rawValue)
        return status
    }
}

/// A batch that no longer changes: keys that would command it do nothing.
struct FixedController: UploadController {
    let final: UploadSnapshot
    func snapshot() async -> UploadSnapshot { final }
    func handle(_ command: UploadDomain.UploadCommand) async {}
    func waitUntilIdle() async {}
}
