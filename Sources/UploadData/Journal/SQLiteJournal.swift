import Foundation
import GRDB
import Synchronization
import UploadDomain

/// The journal in an SQLite file (WAL mode), which runs to different destinations share (`JournalLock`).
///
/// Records go through `JournalWriter`, which commits them in batches on its own thread; queries run on the
/// caller's thread after a flush, so they see everything recorded before them.
public final class SQLiteJournal: UploadJournal, MultipartCheckpoints, Sendable {
    /// The database file.
    public let path: String
    /// This run's destination (the `--to` or `s3://` URL), as given to `open`.
    public let destination: String
    /// This run's row in `runs`.
    public let runID: Int64

    private let queue: DatabaseQueue
    /// Whether this run created the file: it then holds no file of this run's destination, which no other run writes.
    private let created: Bool
    /// Set by the first `record`: from then on the file holds files of this run.
    private let recordedFiles = Atomic<Bool>(false)
    private let writer: JournalWriter
    /// Dropped (and so released) by `close`.
    private let lock: Mutex<JournalLock?>
    /// `commitDoneAtOnce`.
    private let promptDone = Atomic<Bool>(false)
    /// The file's device and inode when the run began: a journal removed or replaced meanwhile records nothing.
    private let identity: FileIdentity?

    deinit {
        // Not closed: stop the thread but leave the run without an end, as a killed run would.
        if writer.beginClosing(endingRun: nil) { writer.waitUntilStopped() }
    }

    /// Opens (creating when missing) the journal at `path` for one run and records the run's start.
    ///
    /// - Parameters:
    ///   - path: The SQLite file; missing parent folders are created 0700.
    ///   - destination: Where the run uploads to (no secrets).
    ///   - arguments: The run's command line, already redacted.
    /// - Throws: `JournalError`; a file that is not a journal is left untouched.
    public static func open(path: String, destination: String, arguments: String) throws(JournalError)
        -> SQLiteJournal
    {
        try prepare(path: path, destination: destination).begin(destination: destination, arguments: arguments)
    }

    /// Locks, checks and migrates the journal at `path` (creating it when missing) without starting a run: the
    /// part of opening that can go on while the files are scanned, and that a failed scan leaves without a run.
    ///
    /// - Parameter destination: The run's destination, held against other runs to it; nil holds the whole journal,
    ///   with no run beside (`delete`).
    /// - Throws: `JournalError`; a file that is not a journal is left untouched.
    public static func prepare(path given: String, destination: String?) throws(JournalError) -> PreparedJournal {
        let path = JournalFiles.resolved(given)
        try JournalFiles.checkIsFile(path)
        try JournalFiles.makeParentFolders(of: path)
        var lock = try JournalLock(journalPath: path, exclusive: destination == nil)
        let created = try JournalFiles.createIfMissing(path)
        try lock.lockDatabase(path)
        if let destination { try lock.claim(destination: destination, journal: path) }
        do {
            let queue = try lock.serialized(journal: path) { () throws -> DatabaseQueue in
                var configuration = Configuration()
                configuration.label = "uploader-tui journal"
                // Another run, or a `history` reader, may hold a lock for a moment: a commit, the WAL's recovery.
                configuration.busyMode = .timeout(5)
                let queue = try DatabaseQueue(path: path, configuration: configuration)
                try queue.writeWithoutTransaction { db in
                    try JournalSchema.check(db, path: path)
                    // With WAL, NORMAL never corrupts: a power cut can only roll back the last commits (no fsync
                    // each). A new, empty file gets no fsync at all until its schema and first run exist: switching it
                    // to WAL goes through a rollback journal and cost five syncs before the first upload. A power cut
                    // in those milliseconds leaves a new file the next run refuses by name, never a damaged old
                    // journal.
                    try db.execute(sql: created ? "PRAGMA synchronous = OFF" : "PRAGMA synchronous = NORMAL")
                    let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
                    guard mode == "wal" else {
                        throw JournalError(
                            .notWritable, path: path, reason: "cannot switch it to WAL mode (it stays \(mode ?? "?"))")
                    }
                }
                try JournalSchema.migrator.migrate(queue)
                return queue
            }
            return PreparedJournal(path: path, queue: queue, created: created, lock: lock)
        } catch {
            throw JournalError.from(error, path: path)
        }
    }

    fileprivate init(
        path: String, destination: String, runID: Int64, queue: DatabaseQueue, created: Bool,
        lock: consuming JournalLock
    ) {
        self.path = path
        self.destination = destination
        self.runID = runID
        self.queue = queue
        self.created = created
        self.lock = Mutex(lock)
        identity = JournalFiles.identity(of: path)
        writer = JournalWriter(queue: queue, path: path, runID: runID)
    }

    /// The last failure to write or read the journal since it opened (a failed batch is lost), or its file removed
    /// or replaced since (what is written goes nowhere a rerun reads); worth a warning.
    public var writeFailure: JournalError? {
        if let failure = writer.failure { return failure }
        guard let identity, JournalFiles.identity(of: path) != identity else { return nil }
        return JournalError(.sqliteFailure, path: path, reason: "removed or replaced while this run wrote it")
    }

    // MARK: - UploadJournal

    /// Looks all items up in one query, so 10,000 files cost one round trip.
    ///
    /// A row names the file as it was sent (`name`): the same file sent under another name (from another folder
    /// given, to a form that stores by name) was not uploaded as this one.
    /// The (path, destination, name) triples go in as one JSON array, which SQLite walks with `json_each` and joins on
    /// the files' unique index; binding 10,000 rows into a temporary table costs several times more.
    /// Size and mtime are compared here, on the stored REAL, so no number takes a trip through decimal text.
    /// A journal this run created, before this run records a file, holds none to look up.
    public func priorOutcomes(of items: [UploadItem], destinations: [String]) -> [Int: JournalEntry.PriorOutcome] {
        if created, !recordedFiles.load(ordering: .acquiring) { return [:] }
        writer.flush()
        do {
            return try Self.priorOutcomes(of: items, destinations: destinations, in: queue)
        } catch {
            writer.noteFailure(JournalError.from(error, path: path))
            return [:]
        }
    }

    static func priorOutcomes(
        of items: [UploadItem], destinations: [String], in queue: DatabaseQueue
    ) throws -> [Int: JournalEntry.PriorOutcome] {
        var outcomes: [Int: JournalEntry.PriorOutcome] = [:]
        try forEachRow(
            // Every outcome but done is one `--retry-failed` sends again: the dry run says `retry` for it.
            of: items, destinations: destinations, in: queue, phases: "'done', 'failed', 'cancelled', 'started'",
            columns: "files.phase = 'done'"
        ) { item, row in
            outcomes[item.id] = row[3] as Bool ? .done : .failed
        }
        return outcomes
    }

    /// How many times earlier runs found each file's stored copy wrong, for those where it happened: what keeps a
    /// rerun from sending it under the key whose answer is that copy.
    public func keyRenewals(of items: [UploadItem], destinations: [String]) -> [Int: Int] {
        if created, !recordedFiles.load(ordering: .acquiring) { return [:] }
        var renewals: [Int: Int] = [:]
        do {
            try Self.forEachRow(
                of: items, destinations: destinations, in: queue, phases: "'done', 'failed', 'cancelled', 'started'",
                columns: "files.key_renewal"
            ) { item, row in
                let renewal: Int? = row[3]
                if let renewal, renewal > 0 { renewals[item.id] = renewal }
            }
        } catch {
            writer.noteFailure(JournalError.from(error, path: path))
        }
        return renewals
    }

    /// What the server answered the files an earlier run uploaded (those `priorOutcomes` says are done), so a
    /// rerun reports their media IDs and locations with their skip.
    public func earlierResults(of items: [UploadItem], destinations: [String]) -> [Int: UploadResult] {
        var results: [Int: UploadResult] = [:]
        do {
            try Self.forEachRow(
                of: items, destinations: destinations, in: queue, phases: "'done'",
                columns: "files.http_status, files.response, files.media_id, files.location"
            ) { item, row in
                let body: String = row[4] ?? ""
                let first = body.first { !$0.isWhitespace }
                results[item.id] = UploadResult(
                    httpStatus: row[3] ?? 0, body: body, isJSON: first == "{" || first == "[", location: row[6],
                    mediaID: row[5])
            }
        } catch {
            writer.noteFailure(JournalError.from(error, path: path))
        }
        return results
    }

    /// Calls `body` with each item's row in one of `phases`, whose size and mtime are the item's: one query
    /// selecting the key, size, mtime, then `columns` (from index 3).
    private static func forEachRow(
        of items: [UploadItem], destinations: [String], in queue: DatabaseQueue, phases: String, columns: String,
        _ body: (UploadItem, Row) throws -> Void
    ) throws {
        precondition(items.count == destinations.count, "one destination per item")
        guard !items.isEmpty else { return }
        // By hand: JSONEncoder was a tenth of the time to the first request (docs/engine.md).
        let pairs = JSONText.array(of: zip(items, destinations).map { [$0.path, $1, $0.relativePath] })
        try queue.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT probe.key, files.size, files.mtime, \(columns)
                    FROM json_each(?) AS probe CROSS JOIN files
                        ON files.path = json_extract(probe.value, '$[0]')
                        AND files.destination = json_extract(probe.value, '$[1]')
                    WHERE files.phase IN (\(phases))
                        AND (files.name IS NULL OR files.name = json_extract(probe.value, '$[2]'))
                    """,
                arguments: [pairs])
            while let row = try rows.next() {
                let item = items[row[0] as Int]
                let size: Int64 = row[1]
                let modified: Double = row[2]
                guard size == item.size, modified == item.modified else { continue }
                try body(item, row)
            }
        }
    }

    /// Buffers the entry and returns at once; the writer thread commits it within about 50 ms.
    public func record(_ entry: JournalEntry) {
        recordedFiles.store(true, ordering: .releasing)
        let done = if case .done = entry.outcome { true } else { false }
        writer.submit(
            .file(entry, at: Date().timeIntervalSince1970), prompt: done && promptDone.load(ordering: .relaxed))
    }

    /// Commits each file's done record at once instead of in the next batch (tens of milliseconds later), for
    /// destinations where a lost done record means a second copy: a presigned ticket names a new object on every
    /// run. A kill -9 then loses the records of the last fraction of a millisecond, not of the last batch.
    public func commitDoneAtOnce() {
        promptDone.store(true, ordering: .relaxed)
    }

    /// Returns once everything recorded before the call is committed; hashes still pending are not waited for.
    public func flush() {
        writer.flush()
    }

    /// Commits what is left, finishes pending hashes (for up to 10 s), writes the run's end, closes the file and
    /// releases the lock; a second call does nothing.
    ///
    /// The run's end goes in the writer's last commit, with `synchronous = FULL`, which syncs the WAL with every
    /// commit before it: the whole run is on disk when this returns. The WAL stays for the next open to read.
    public func close(counts: PhaseCounts) {
        guard writer.beginClosing(endingRun: counts) else { return }
        writer.waitUntilStopped()
        lock.withLock { $0 = nil }
    }

    /// Starts `close(counts:)` on the writer thread and returns at once; `closed()` waits for it. A call after the
    /// first does nothing.
    public func beginClose(counts: PhaseCounts) {
        _ = writer.beginClosing(endingRun: counts)
    }

    /// Returns once the close that `beginClose` started is done, and releases the lock.
    public func closed() async {
        await writer.stoppedRunning()
        lock.withLock { $0 = nil }
    }

    // MARK: - Queries

    /// - Parameter besideRun: The newest run to `destination` is going on: its rows and its missing end are left out.
    static func unfinishedFiles(destination: String, in queue: DatabaseQueue, besideRun: Bool = false) throws
        -> UnfinishedFiles
    {
        let earlier =
            besideRun
            ? " AND runs.id < (SELECT MAX(newest.id) FROM runs AS newest WHERE newest.destination = runs.destination)"
            : ""
        return try queue.read { db in
            func paths(_ phases: String) throws -> Set<String> {
                Set(
                    try String.fetchAll(
                        db,
                        sql: """
                            SELECT DISTINCT files.path FROM files JOIN runs ON runs.id = files.run_id
                            WHERE files.phase IN (\(phases)) AND runs.destination = ?\(earlier)
                            """,
                        arguments: [destination]))
            }
            let cutOff = try Double.fetchOne(
                db, sql: "SELECT MAX(started_at) FROM runs WHERE destination = ? AND ended_at IS NULL" + earlier,
                arguments: [destination])
            return UnfinishedFiles(
                listed: try paths("'failed', 'cancelled', 'started'"),
                cutOff: try cutOff.map { UnfinishedFiles.CutOff(startedAt: $0, done: try paths("'done'")) })
        }
    }

    /// One file's row as stored, for tests and diagnostics.
    struct StoredFile: Equatable {
        var phase: String
        var attempts: Int
        var contentHash: String?
        var httpStatus: Int?
        var response: String?
        var mediaID: String?
        var location: String?
        var error: String?
        var runID: Int64
        var verified: String? = nil
    }

    /// The row for `path` at `destination`, after a flush.
    func storedFile(path: String, destination: String) -> StoredFile? {
        writer.flush()
        return try? queue.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT phase, attempts, content_hash, http_status, response, media_id, location, error, run_id,
                        verified
                    FROM files WHERE path = ? AND destination = ?
                    """,
                arguments: [path, destination]
            ).map {
                StoredFile(
                    phase: $0[0], attempts: $0[1], contentHash: $0[2], httpStatus: $0[3], response: $0[4],
                    mediaID: $0[5],
                    location: $0[6], error: $0[7], runID: $0[8], verified: $0[9])
            }
        }
    }

    // MARK: - MultipartCheckpoints

    /// The uploads begun for this file and key, newest first.
    public func unfinishedUploads(of item: UploadItem, key: String) -> [UnfinishedUpload] {
        writer.flush()
        do {
            return try queue.read { db in
                let uploads = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT upload_id, size, mtime, part_size, checksum_algorithm FROM multipart_uploads
                        WHERE path = ? AND key = ? ORDER BY created_at DESC, rowid DESC
                        """,
                    arguments: [item.path, key])
                return try uploads.map { upload in
                    let uploadID: String = upload[0]
                    var parts: [Int: FinishedPart] = [:]
                    let rows = try Row.fetchCursor(
                        db, sql: "SELECT number, etag, checksum FROM multipart_parts WHERE upload_id = ?",
                        arguments: [uploadID])
                    while let row = try rows.next() { parts[row[0]] = FinishedPart(etag: row[1], checksum: row[2]) }
                    return UnfinishedUpload(
                        uploadID: uploadID, size: upload[1], modified: upload[2], partSize: upload[3],
                        checksumAlgorithm: upload[4], parts: parts)
                }
            }
        } catch {
            writer.noteFailure(JournalError.from(error, path: path))
            return []
        }
    }

    /// Every upload the journal keeps, oldest first.
    public func keptUploads() -> [KeptUpload] {
        writer.flush()
        do {
            return try queue.read { db in
                try Row.fetchAll(
                    db, sql: "SELECT upload_id, path, key FROM multipart_uploads ORDER BY created_at, rowid"
                ).map { KeptUpload(uploadID: $0[0], path: $0[1], key: $0[2]) }
            }
        } catch {
            writer.noteFailure(JournalError.from(error, path: path))
            return []
        }
    }

    /// Notes the upload's start, committed at once: it is what lets a later run continue instead of restarting.
    public func uploadBegan(
        _ uploadID: String, item: UploadItem, key: String, partSize: Int64, checksumAlgorithm: String?
    ) {
        let write = JournalWrite.uploadBegan(
            uploadID: uploadID, item: item, key: key, partSize: partSize, checksumAlgorithm: checksumAlgorithm,
            at: Date().timeIntervalSince1970)
        writer.submit(write, prompt: true)
    }

    /// Notes one finished part, committed at once (a part may be gigabytes of transfer).
    public func partFinished(uploadID: String, number: Int, part: FinishedPart) {
        writer.submit(.partFinished(uploadID: uploadID, number: number, part: part), prompt: true)
    }

    /// Forgets the upload and its parts; batched like outcomes.
    public func uploadEnded(_ uploadID: String) {
        writer.submit(.uploadEnded(uploadID: uploadID))
    }
}

/// A journal locked, checked and migrated, whose run has not begun (`SQLiteJournal.prepare`).
public final class PreparedJournal: Sendable {
    let path: String
    private let queue: DatabaseQueue
    private let created: Bool
    /// Taken by `begin`, or dropped (released) by `release`.
    private let lock: Mutex<JournalLock?>

    fileprivate init(path: String, queue: DatabaseQueue, created: Bool, lock: consuming JournalLock) {
        self.path = path
        self.queue = queue
        self.created = created
        self.lock = Mutex(lock)
    }

    /// Records the run's start and returns the journal it writes to; call once.
    /// - Throws: `JournalError` when the run cannot be recorded.
    public func begin(destination: String, arguments: String) throws(JournalError) -> SQLiteJournal {
        guard let lock = lock.withLock({ $0.take() }) else {
            preconditionFailure("Invalid state: the prepared journal at \(path) was begun or released already")
        }
        do {
            let runID = try queue.write { db in
                try db.execute(
                    sql: "INSERT INTO runs (started_at, destination, arguments) VALUES (?, ?, ?)",
                    arguments: [Date().timeIntervalSince1970, destination, arguments])
                return db.lastInsertedRowID
            }
            if created { try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = NORMAL") } }
            return SQLiteJournal(
                path: path, destination: destination, runID: runID, queue: queue, created: created, lock: lock)
        } catch {
            throw JournalError.from(error, path: path)
        }
    }

    /// What the journal says, read without beginning a run (`--retry-failed`, `--dry-run`).
    public var queries: JournalQueries { JournalQueries(path: path, queue: queue) }

    /// Forgets the done records of files stored at `destinations` (as a planner names them, under any image options)
    /// or answered with one of `locations` by a destination on `store`'s origin: `delete` removed them there, so a
    /// rerun sends them again.
    /// - Returns: How many records it forgot.
    public func forgetDone(destinations: [String], locations: [String], store: String) throws(JournalError) -> Int {
        // A location is a name the server gave (`a.jpg`): another server's file may bear it too.
        let origin = MultiplexedOrigins.origin(of: Redactor.url(store))
        do {
            return try queue.write { db in
                var forgotten = 0
                for destination in destinations {
                    // A run with image options keys its files `destination [tag]`.
                    try db.execute(
                        sql: """
                            DELETE FROM files WHERE phase = 'done'
                            AND (destination = ?1 OR substr(destination, 1, length(?1) + 2) = ?1 || ' [')
                            """,
                        arguments: [destination])
                    forgotten += db.changesCount
                }
                for location in locations {
                    try db.execute(
                        sql: "DELETE FROM files WHERE phase = 'done' AND location = ? AND instr(destination, ?) > 0",
                        arguments: [location, origin])
                    forgotten += db.changesCount
                }
                return forgotten
            }
        } catch {
            throw JournalError.from(error, path: path)
        }
    }

    /// Closes the file without a run (the scan that went with it failed) and releases the lock. A journal this
    /// call's `prepare` created is removed again, unless another run has opened it meanwhile, so a failed command
    /// leaves none behind (the lock file stays, as it always does).
    public func release() {
        try? queue.close()
        lock.withLock { lock in
            if created, lock?.isSoleHolder() == true {
                for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
            }
            lock = nil
        }
    }
}
