import CSQLite
import Dispatch
import Foundation
import GRDB
import Synchronization
import UploadDomain

/// The one thread that writes the journal: callers append to a buffer and return; it commits batches.
///
/// Each batch is one transaction, so a kill at any moment leaves either all of it or none. After a batch with
/// done rows whose transfer did not hash the bytes on the way (S3 multipart uploads) it hashes those files
/// once, a chunk at a time, committing any batch that comes due in between.
final class JournalWriter: Sendable {
    /// How long `close` keeps hashing files still waiting for their hash; the rest keep a NULL content hash.
    ///
    /// Hashing normally keeps pace with uploads (it reads the files just sent, mostly from the page cache),
    /// but a fast link can leave gigabytes behind, and a user who asked to quit should not wait minutes for it.
    static let closeHashBudget = DispatchTimeInterval.seconds(10)
    /// Responses longer than this are cut, so a chatty server cannot bloat the journal.
    static let responseLimit = 64 * 1024

    private let queue: DatabaseQueue
    private let path: String
    private let runID: Int64
    private let state = Mutex(JournalWriterState())
    private let wake = DispatchSemaphore(value: 0)
    /// Whether the thread has ended, and what waits for that.
    private let ended = Mutex<(done: Bool, waiters: [@Sendable () -> Void])>((false, []))

    /// Starts the writer thread.
    init(queue: DatabaseQueue, path: String, runID: Int64) {
        self.queue = queue
        self.path = path
        self.runID = runID
        let thread = Thread { [self] in
            run()
            let waiters = ended.withLock { state in
                state.done = true
                return state.waiters
            }
            for waiter in waiters { waiter() }
        }
        thread.name = "uploader-tui journal"
        thread.start()
    }

    /// The last failure to write or read, if any.
    var failure: JournalError? { state.withLock { $0.failure } }

    /// Buffers `write` and returns at once; `prompt` commits it without waiting for the batch window.
    func submit(_ write: JournalWrite, prompt: Bool = false) {
        if state.withLock({ $0.enqueue(write, prompt: prompt) }) { wake.signal() }
    }

    /// Returns once everything submitted before the call is committed (or has failed, see `failure`).
    func flush() {
        guard let waiter = state.withLock({ $0.flushWaiter() }) else { return }
        wake.signal()
        waiter.wait()
    }

    /// Starts closing and returns at once. The thread commits what is left, hashes what waits (within
    /// `closeHashBudget`) and ends; given the run's counts, it writes the run's end in the last commit, synced with
    /// `synchronous = FULL`, and closes the database.
    ///
    /// - Returns: false when the writer was already closing.
    func beginClosing(endingRun counts: PhaseCounts?) -> Bool {
        let end = counts.map { JournalWrite.runEnded($0, at: Date().timeIntervalSince1970) }
        let first = state.withLock { $0.beginClosing(now: .now(), hashBudget: Self.closeHashBudget, runEnd: end) }
        if first { wake.signal() }
        return first
    }

    /// Waits for the thread to end, after `beginClosing`.
    func waitUntilStopped() {
        let stopped = DispatchSemaphore(value: 0)
        whenStopped { stopped.signal() }
        stopped.wait()
    }

    /// Returns once the thread has ended, after `beginClosing`.
    func stoppedRunning() async {
        await withCheckedContinuation { continuation in whenStopped { continuation.resume() } }
    }

    /// Calls `waiter` once the thread has ended: at once if it has.
    private func whenStopped(_ waiter: @escaping @Sendable () -> Void) {
        let done = ended.withLock { state in
            if !state.done { state.waiters.append(waiter) }
            return state.done
        }
        if done { waiter() }
    }

    /// Notes a failure found outside the thread (a query, writing the run's end), for `failure`.
    func noteFailure(_ error: JournalError) {
        state.withLock { $0.noteFailure(error) }
    }

    // MARK: - The thread

    private func run() {
        var jobs = HashQueue()
        var hasher: FileHasher?
        var buffer: [UInt8] = []
        while true {
            let step = state.withLock { $0.next(now: .now(), hashing: hasher != nil || !jobs.isEmpty) }
            switch step {
            case .commit(let writes, let sequence):
                var failure: JournalError?
                do {
                    jobs.append(try commit(writes))
                } catch {
                    // The batch is lost, but the thread goes on: later batches may succeed (space freed).
                    failure = JournalError.from(error, path: path)
                }
                let ready = state.withLock { $0.committed(through: sequence, failure: failure) }
                for waiter in ready { waiter.signal() }
            case .hash:
                if hasher == nil {
                    hasher = jobs.next().flatMap(FileHasher.init)
                    continue
                }
                if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: FileHasher.chunkSize) }
                switch hasher!.step(buffer: &buffer) {
                case .more:
                    break
                case .finished(let contentHash):
                    let job = hasher!.job
                    state.withLock { $0.enqueueHash(job, contentHash: contentHash) }
                    hasher = nil
                case .abandoned:
                    hasher = nil
                }
            case .dropHashes:
                jobs = HashQueue()
                hasher = nil
            case .wait(let deadline):
                if let deadline { _ = wake.wait(timeout: deadline) } else { wake.wait() }
            case .finish:
                if state.withLock({ $0.endsRun }) { closeDatabase() }
                return
            }
        }
    }

    /// Leaves the WAL for the next open to read instead of copying it into the database file: that checkpoint
    /// lengthened every run's exit, and SQLite still checkpoints during later runs, at 1,000 pages.
    private func closeDatabase() {
        do {
            // Should SQLite refuse the option, closing checkpoints as it always did: nothing is lost.
            queue.writeWithoutTransaction { _ = csqlite_skip_checkpoint_on_close($0.sqliteConnection) }
            try queue.close()
        } catch {
            state.withLock { $0.noteFailure(JournalError.from(error, path: path)) }
        }
    }

    /// Writes one batch in one transaction; returns the files whose done rows still want a hash.
    private func commit(_ writes: [JournalWrite]) throws -> [HashJob] {
        if writes.contains(where: { if case .runEnded = $0 { true } else { false } }) {
            // The run's end is synced, and with it every commit before it: the whole run is on disk.
            try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
        }
        return try queue.write { db in
            var jobs: [HashJob] = []
            let fileRows = try FileRowUpsert(db)
            for write in JournalWrite.coalesced(writes) {
                switch write {
                case .file(let entry, let time):
                    try upsert(entry, at: time, with: fileRows)
                    if write.wantsHash {
                        jobs.append(
                            HashJob(
                                path: entry.item.path, destination: entry.destination, size: entry.item.size,
                                modified: entry.item.modified))
                    }
                case .hash(let job, let contentHash):
                    // Only a row still for the same size and mtime gets the hash of what was read.
                    try db.cachedStatement(
                        sql: """
                            UPDATE files SET content_hash = ?
                            WHERE path = ? AND destination = ? AND size = ? AND mtime = ?
                            """
                    ).execute(arguments: [contentHash, job.path, job.destination, job.size, job.modified])
                case .uploadBegan(let uploadID, let item, let key, let partSize, let algorithm, let time):
                    try db.cachedStatement(
                        sql: """
                            INSERT OR REPLACE INTO multipart_uploads
                            (upload_id, path, key, size, mtime, created_at, checksum_algorithm, part_size)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                            """
                    ).execute(arguments: [
                        uploadID, item.path, key, item.size, item.modified, time, algorithm, partSize,
                    ])
                case .partFinished(let uploadID, let number, let part):
                    try db.cachedStatement(
                        sql: """
                            INSERT OR REPLACE INTO multipart_parts (upload_id, number, etag, checksum)
                            VALUES (?, ?, ?, ?)
                            """
                    ).execute(arguments: [uploadID, number, part.etag, part.checksum])
                case .uploadEnded(let uploadID):
                    try db.cachedStatement(sql: "DELETE FROM multipart_parts WHERE upload_id = ?")
                        .execute(arguments: [uploadID])
                    try db.cachedStatement(sql: "DELETE FROM multipart_uploads WHERE upload_id = ?")
                        .execute(arguments: [uploadID])
                case .runEnded(let counts, let time):
                    try db.execute(
                        sql: """
                            UPDATE runs SET ended_at = ?, done = ?, failed = ?, cancelled = ?, skipped = ?
                            WHERE id = ?
                            """,
                        arguments: [time, counts.done, counts.failed, counts.cancelled, counts.skipped, runID])
                }
            }
            return jobs
        }
    }

    /// The file's row takes the entry's state whole; a hash survives only for the same size and mtime.
    private func upsert(_ entry: JournalEntry, at time: Double, with statement: FileRowUpsert) throws {
        var status: Int?
        var response: String?
        var mediaID: String?
        var location: String?
        var error: String?
        var contentHash: String?
        var verified: String?
        let phase: String
        switch entry.outcome {
        case .started:
            phase = "started"
        case .done(let result):
            phase = "done"
            status = result?.httpStatus
            response = result.map { Self.truncated($0.body) }
            mediaID = result?.mediaID
            location = result?.location
            contentHash = result?.contentHash
            verified = result?.verified
        case .failed(let failure):
            phase = "failed"
            status = failure.httpStatus
            response = failure.bodyExcerpt
            // The row already names the file; the line keeps the cause, status and excerpt.
            var unnamed = failure
            unnamed.file = nil
            error = unnamed.description.split(whereSeparator: \.isNewline).joined(separator: " ")
        case .cancelled:
            phase = "cancelled"
        }
        try statement.run([
            .text(entry.item.path), .text(entry.destination), .integer(entry.item.size), .real(entry.item.modified),
            .text(phase), .integer(Int64(entry.attempt)), .integer(status.map(Int64.init)), .text(response),
            .text(mediaID), .text(location), .text(error), .integer(runID), .real(time), .text(contentHash),
            .text(verified), .text(entry.item.relativePath),
            .integer(entry.item.keyRenewal > 0 ? Int64(entry.item.keyRenewal) : nil),
        ])
    }

    /// The first `responseLimit` bytes of `text`, cut at a character boundary.
    static func truncated(_ text: String) -> String {
        guard text.utf8.count > responseLimit else { return text }
        var end = text.utf8.index(text.utf8.startIndex, offsetBy: responseLimit)
        while end.samePosition(in: text) == nil { end = text.utf8.index(before: end) }
        return String(text[..<end])
    }
}

/// Files waiting for their hash, first in first out, without the O(n) shift of `removeFirst`.
private struct HashQueue {
    private var jobs: [HashJob] = []
    private var head = 0

    var isEmpty: Bool { head == jobs.count }

    mutating func append(_ more: [HashJob]) {
        jobs += more
    }

    mutating func next() -> HashJob? {
        guard head < jobs.count else { return nil }
        defer {
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            }
        }
        return jobs[head]
    }
}
