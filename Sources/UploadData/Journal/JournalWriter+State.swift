import Dispatch
import UploadDomain

/// One change waiting for the journal's writer thread.
enum JournalWrite: Sendable {
    case file(JournalEntry, at: Double)
    case hash(HashJob, contentHash: String)
    case uploadBegan(
        uploadID: String, item: UploadItem, key: String, partSize: Int64, checksumAlgorithm: String?, at: Double)
    case partFinished(uploadID: String, number: Int, part: FinishedPart)
    case uploadEnded(uploadID: String)
    /// The run's end, the last write of a closing journal.
    case runEnded(PhaseCounts, at: Double)
}

extension JournalWrite {
    /// The batch without the file entries that a later entry for the same file replaces before anything else
    /// touches that row. An entry's upsert sets the row's state whole, so such an entry would be overwritten unseen
    /// in the same transaction: a file sent within one batch window is `started`, then `done`, and only `done`
    /// needs writing (issue 6: half the writes of a batch of small files).
    static func coalesced(_ writes: [JournalWrite]) -> [JournalWrite] {
        struct Row: Hashable {
            var path: String
            var destination: String
        }
        /// Walking backwards: whether the next write to a row is a whole-row entry.
        var replacedLater: [Row: Bool] = [:]
        var kept: [JournalWrite] = []
        kept.reserveCapacity(writes.count)
        for write in writes.reversed() {
            switch write {
            case .file(let entry, _):
                let row = Row(path: entry.item.path, destination: entry.destination)
                if replacedLater.updateValue(true, forKey: row) == true { continue }
            case .hash(let job, _):
                replacedLater[Row(path: job.path, destination: job.destination)] = false
            case .uploadBegan, .partFinished, .uploadEnded, .runEnded:
                break
            }
            kept.append(write)
        }
        return kept.reversed()
    }
}

extension JournalWrite {
    /// A done entry without the content hash: committing it queues its file for hashing.
    var wantsHash: Bool {
        if case .file(let entry, _) = self, case .done(let result) = entry.outcome { return result?.contentHash == nil }
        return false
    }
}

/// A file whose done row still lacks its content hash.
struct HashJob: Sendable, Equatable {
    var path: String
    var destination: String
    var size: Int64
    var modified: Double
}

/// The writer's buffer and its batching decisions, kept free of I/O so they can be tested as scripts.
///
/// Records and flushes change it under the writer's mutex; the writer thread asks `next` what to do.
struct JournalWriterState {
    /// What the writer thread does next.
    enum Step {
        /// Commit these writes in one transaction, then report `committed(through:)`.
        case commit([JournalWrite], through: UInt64)
        /// Hash the next chunk of the current file.
        case hash
        /// Closing ran out of time for hashes: forget the rest (their rows keep a NULL content hash).
        case dropHashes
        /// Sleep until woken, or until the deadline when a batch is open.
        case wait(until: DispatchTime?)
        /// Everything is written and hashed after `close`: the thread ends.
        case finish
    }

    /// A batch is committed this long after its first write, unless it fills or someone waits for it first.
    static let batchWindow = DispatchTimeInterval.milliseconds(50)
    static let batchSize = 256

    private var pending: [JournalWrite] = []
    /// Sequence number of the last write taken in, and of the last one committed (or given up on).
    private var enqueued: UInt64 = 0
    private var committed: UInt64 = 0
    /// Set when a caller waits or a write is worth committing at once; the open batch goes now.
    private var urgent = false
    private var batchDeadline: DispatchTime?
    private var waiters: [(through: UInt64, semaphore: DispatchSemaphore)] = []
    private var hashDeadline: DispatchTime?
    /// The run's end, held back by `beginClosing` for the last commit.
    private var runEnd: JournalWrite?
    /// Set by `close`; records are then refused.
    private(set) var isClosing = false
    /// Set by a close that ends the run: the writer then closes the database too.
    private(set) var endsRun = false
    /// The last failure, for the caller to report.
    private(set) var failure: JournalError?

    /// Takes a record in; returns whether the writer must be woken (a new batch, a full one, or a prompt one).
    mutating func enqueue(_ write: JournalWrite, prompt: Bool) -> Bool {
        guard !isClosing else { return false }
        return append(write, prompt: prompt)
    }

    /// Takes in a hash found by the writer itself, accepted while closing too.
    mutating func enqueueHash(_ job: HashJob, contentHash: String) {
        _ = append(.hash(job, contentHash: contentHash), prompt: false)
    }

    private mutating func append(_ write: JournalWrite, prompt: Bool) -> Bool {
        let wasEmpty = pending.isEmpty
        pending.append(write)
        enqueued += 1
        if prompt { urgent = true }
        return wasEmpty || prompt || pending.count == Self.batchSize
    }

    /// A semaphore signalled once everything taken in so far is committed; nil when that is already so.
    mutating func flushWaiter() -> DispatchSemaphore? {
        guard committed < enqueued else { return nil }
        let semaphore = DispatchSemaphore(value: 0)
        waiters.append((enqueued, semaphore))
        urgent = true
        return semaphore
    }

    /// Starts closing; false when `close` already ran. `runEnd` goes in the last commit, after every hash.
    mutating func beginClosing(now: DispatchTime, hashBudget: DispatchTimeInterval, runEnd: JournalWrite? = nil)
        -> Bool
    {
        guard !isClosing else { return false }
        isClosing = true
        hashDeadline = now + hashBudget
        self.runEnd = runEnd
        endsRun = runEnd != nil
        return true
    }

    /// Decides the writer's next step; `hashing` says whether files wait for their hash.
    mutating func next(now: DispatchTime, hashing: Bool) -> Step {
        // Closing with nothing left to hash: what is left and the run's end go in one commit, synced once.
        if isClosing, !hashing, let end = runEnd, !pending.contains(where: \.wantsHash) {
            runEnd = nil
            let writes = pending + [end]
            pending = []
            urgent = false
            batchDeadline = nil
            return .commit(writes, through: enqueued)
        }
        if !pending.isEmpty {
            let deadline = batchDeadline ?? now + Self.batchWindow
            batchDeadline = deadline
            if urgent || isClosing || pending.count >= Self.batchSize || now >= deadline {
                let writes = pending
                pending = []
                urgent = false
                batchDeadline = nil
                return .commit(writes, through: enqueued)
            }
        }
        if hashing {
            if let hashDeadline, now >= hashDeadline { return .dropHashes }
            return .hash
        }
        if isClosing { return .finish }
        return .wait(until: batchDeadline)
    }

    /// Notes a failure found outside the batches (a query, writing the run's end).
    mutating func noteFailure(_ failure: JournalError) {
        self.failure = failure
    }

    /// Notes a batch as done (written, or lost to `failure`); returns the waiters to signal, after unlocking.
    mutating func committed(through sequence: UInt64, failure: JournalError?) -> [DispatchSemaphore] {
        committed = max(committed, sequence)
        if let failure { self.failure = failure }
        let ready = waiters.filter { $0.through <= committed }.map(\.semaphore)
        waiters.removeAll { $0.through <= committed }
        return ready
    }
}
