import Foundation
import GRDB
import UploadDomain

/// What `--dry-run` asks of a journal, without beginning a run.
public protocol JournalLookup: Sendable {
    /// The files whose last outcome at `destination` was a failure.
    func failedFiles(destination: String) throws(JournalError) -> [String]
    /// What the journal says of `items` at their destinations.
    func priorOutcomes(of items: [UploadItem], destinations: [String]) throws(JournalError)
        -> [Int: JournalEntry.PriorOutcome]
    /// Lets the journal go.
    func release()
}

extension PreparedJournal: JournalLookup {}

/// A journal read without its lock and without writing anything: what `--dry-run` asks of a journal another run is
/// writing (SQLite's WAL lets readers in beside a writer).
public final class JournalReader: JournalLookup {
    private let path: String
    private let queue: DatabaseQueue

    private init(path: String, queue: DatabaseQueue) {
        self.path = path
        self.queue = queue
    }

    /// Opens the journal at `path` read-only.
    /// - Throws: `JournalError`: `.notADatabase` for a file that is not a journal of this version's schema.
    public static func open(path: String) throws(JournalError) -> JournalReader {
        try JournalFiles.checkIsFile(path)
        do {
            var configuration = Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(5)
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            let current = try queue.read { db in
                try Int32.fetchOne(db, sql: "PRAGMA application_id") == JournalSchema.applicationID
                    && JournalSchema.migrator.hasCompletedMigrations(db)
            }
            guard current else {
                try? queue.close()
                throw JournalError(.notADatabase, path: path, reason: "not a journal this version can read as it is")
            }
            return JournalReader(path: path, queue: queue)
        } catch {
            throw JournalError.from(error, path: path)
        }
    }

    public func failedFiles(destination: String) throws(JournalError) -> [String] {
        do {
            return try SQLiteJournal.failedFiles(destination: destination, in: queue)
        } catch {
            throw JournalError.from(error, path: path)
        }
    }

    public func priorOutcomes(
        of items: [UploadItem], destinations: [String]
    ) throws(JournalError) -> [Int: JournalEntry.PriorOutcome] {
        do {
            return try SQLiteJournal.priorOutcomes(of: items, destinations: destinations, in: queue)
        } catch {
            throw JournalError.from(error, path: path)
        }
    }

    /// Closes the file.
    public func release() {
        try? queue.close()
    }
}
