import Foundation
import GRDB
import UploadDomain

/// What a journal says, read without beginning a run: `--retry-failed` and `--dry-run` ask before anything is
/// recorded. From a prepared journal (`PreparedJournal.queries`), or from one another run is writing, opened
/// read-only beside it (`openReadOnly`; SQLite's WAL lets readers in beside a writer), as `history` reads.
public final class JournalQueries: Sendable {
    private let path: String
    private let queue: DatabaseQueue
    /// Opened by `openReadOnly`, so `close` closes it; a prepared journal's queue is its own to close.
    private let ownsQueue: Bool

    init(path: String, queue: DatabaseQueue, ownsQueue: Bool = false) {
        self.path = path
        self.queue = queue
        self.ownsQueue = ownsQueue
    }

    /// Opens the journal at `path` read-only, without its lock; `close()` when done.
    /// - Throws: `JournalError`: `.notADatabase` for a file that is not a journal of this version's schema.
    public static func openReadOnly(path: String) throws(JournalError) -> JournalQueries {
        try JournalFiles.checkIsFile(path)
        do {
            let queue = try SQLiteJournal.readOnlyQueue(path: path)
            let current = try queue.read { db in
                try Int32.fetchOne(db, sql: "PRAGMA application_id") == JournalSchema.applicationID
                    && JournalSchema.migrator.hasCompletedMigrations(db)
            }
            guard current else {
                try? queue.close()
                throw JournalError(.notADatabase, path: path, reason: "not a journal this version can read as it is")
            }
            return JournalQueries(path: path, queue: queue, ownsQueue: true)
        } catch {
            throw JournalError.from(error, path: path)
        }
    }

    /// The files earlier runs to `destination` did not finish: failed, cancelled (a stop, or a batch stopped by a
    /// refusal that would meet every file) or cut off by a kill.
    public func unfinishedFiles(destination: String) throws(JournalError) -> UnfinishedFiles {
        do {
            // Read beside the run that holds the journal (`openReadOnly`): that run has no end yet, yet was not cut off.
            return try SQLiteJournal.unfinishedFiles(destination: destination, in: queue, besideRun: ownsQueue)
        } catch {
            throw JournalError.from(error, path: path)
        }
    }

    /// What the journal says of `items` at their destinations.
    public func priorOutcomes(
        of items: [UploadItem], destinations: [String]
    ) throws(JournalError) -> [Int: JournalEntry.PriorOutcome] {
        do {
            return try SQLiteJournal.priorOutcomes(of: items, destinations: destinations, in: queue)
        } catch {
            throw JournalError.from(error, path: path)
        }
    }

    /// Closes a journal opened by `openReadOnly`; does nothing for a prepared journal's queries.
    public func close() {
        if ownsQueue { try? queue.close() }
    }
}
