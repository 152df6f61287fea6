import Foundation
import GRDB
import UploadDomain

/// One run as the journal remembers it, for `--history`.
public struct RunSummary: Sendable, Equatable {
    /// A file the run left failed, with its error line.
    public struct Failure: Sendable, Equatable {
        public var path: String
        public var error: String

        /// Creates a failure.
        public init(path: String, error: String) {
            self.path = path
            self.error = error
        }
    }

    public var id: Int64
    public var startedAt: Date
    /// Nil for a run that never ended: still running, or killed.
    public var endedAt: Date?
    public var destination: String
    /// The run's command line, as redacted when it started.
    public var arguments: String
    /// The counts the run ended with; for a run that never ended, done, failed and cancelled as its files show.
    public var counts: PhaseCounts
    /// Files whose latest outcome is this run's failure (a later run's outcome for a file replaces it).
    public var failures: [Failure]

    /// Creates a summary.
    public init(
        id: Int64, startedAt: Date, endedAt: Date?, destination: String, arguments: String, counts: PhaseCounts,
        failures: [Failure]
    ) {
        self.id = id
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.destination = destination
        self.arguments = arguments
        self.counts = counts
        self.failures = failures
    }
}

extension SQLiteJournal {
    /// Whether a run to `destination` is writing the journal at `path` now.
    public static func isInUse(path: String, destination: String) -> Bool {
        JournalLock.isHeld(journalPath: JournalFiles.resolved(path), destination: destination)
    }

    /// Where the journal lives unless `--journal` says otherwise, following the XDG base directory spec.
    ///
    /// - Returns: `$XDG_STATE_HOME/uploader-tui/journal.sqlite` when that is an absolute path, else
    ///   `$HOME/.local/state/uploader-tui/journal.sqlite`.
    public static func defaultPath(environment: [String: String]) -> String {
        // The spec says a relative XDG path is invalid and must be ignored.
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/uploader-tui/journal.sqlite"
        }
        let home = HomePath.home(environment, passwd: NSHomeDirectory)
        return home + "/.local/state/uploader-tui/journal.sqlite"
    }

    /// The journal at `path` opened read-only and without the lock, beside a run that may be writing it (WAL).
    static func readOnlyQueue(path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(5)
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    /// The most recent runs, newest first, read without the lock so it works while another run writes.
    ///
    /// - Parameters:
    ///   - path: The journal file.
    ///   - limit: How many runs at most.
    /// - Throws: `JournalError`: `.notFound` when there is no file, `.notADatabase` when it is not a journal.
    public static func history(path: String, limit: Int) throws(JournalError) -> [RunSummary] {
        guard FileManager.default.fileExists(atPath: path) else {
            throw JournalError(.notFound, path: path, reason: "no such file")
        }
        try JournalFiles.checkIsFile(path)
        do {
            let queue = try readOnlyQueue(path: path)
            defer { try? queue.close() }
            return try queue.read { db in
                let application = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                guard application == JournalSchema.applicationID else {
                    let tables = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
                    // An empty file is a journal whose first open never finished: no runs.
                    if application == 0, tables == 0 { return [] }
                    throw JournalError(
                        .notADatabase, path: path, reason: "an SQLite database, but not an uploader-tui journal")
                }
                return try summaries(db, limit: limit)
            }
        } catch {
            throw JournalError.from(error, path: path)
        }
    }

    private static func summaries(_ db: Database, limit: Int) throws -> [RunSummary] {
        let runs = try Row.fetchAll(
            db,
            sql: """
                SELECT id, started_at, ended_at, destination, arguments, done, failed, cancelled, skipped
                FROM runs ORDER BY id DESC LIMIT ?
                """,
            arguments: [max(0, limit)])
        return try runs.map { run in
            let id: Int64 = run["id"]
            let ended: Double? = run["ended_at"]
            var counts = PhaseCounts()
            if ended != nil {
                counts.done = run["done"] ?? 0
                counts.failed = run["failed"] ?? 0
                counts.cancelled = run["cancelled"] ?? 0
                counts.skipped = run["skipped"] ?? 0
            } else {
                let phases = try Row.fetchAll(
                    db, sql: "SELECT phase, count(*) FROM files WHERE run_id = ? GROUP BY phase", arguments: [id])
                for phase in phases {
                    let count: Int = phase[1]
                    switch phase[0] as String {
                    case "done": counts.done = count
                    case "failed": counts.failed = count
                    case "cancelled": counts.cancelled = count
                    default: break
                    }
                }
            }
            let failures = try Row.fetchAll(
                db,
                sql: "SELECT path, error FROM files WHERE run_id = ? AND phase = 'failed' ORDER BY path",
                arguments: [id]
            ).map { RunSummary.Failure(path: $0["path"], error: $0["error"] ?? "") }
            return RunSummary(
                id: id, startedAt: Date(timeIntervalSince1970: run["started_at"]),
                endedAt: ended.map(Date.init(timeIntervalSince1970:)), destination: run["destination"],
                arguments: run["arguments"], counts: counts, failures: failures)
        }
    }
}
