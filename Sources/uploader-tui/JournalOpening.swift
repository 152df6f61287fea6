import Dispatch
import Synchronization
import UploadData

/// Prepares the journal while the arguments are parsed and the files scanned (issue 6), to be begun by the run,
/// or given up when the scan fails, so a mistyped path leaves no run behind.
///
/// Its thread starts with `main` and first runs `first` (loading libcurl and warming it up). The preparation
/// (locking, checking and migrating) then goes to whichever thread is free first: this one, or the main thread
/// once its plan is made. A thread started with `main` runs at once: on a 2-core VM a thread started later, while
/// the main thread kept the other core busy, waited to be scheduled.
final class JournalOpening: Sendable {
    private enum Request {
        case open(path: String, destination: String)
        case none
    }

    private let request = Mutex<Request?>(nil)
    private let requested = DispatchSemaphore(value: 0)
    /// Taken by the thread that prepares the journal.
    private let claimed = Atomic<Bool>(false)
    /// Set, and `done` signalled, when the start-up thread has prepared the journal.
    private let outcome = Mutex<Result<PreparedJournal, JournalError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts the thread; `open(path:)` or `skip()` says what it does after `first`.
    init(first: @escaping @Sendable () -> Void) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            first()
            requested.wait()
            guard case .open(let path, let destination)? = request.withLock({ $0 }), claim() else { return }
            outcome.withLock { $0 = Self.prepare(path, destination: destination) }
            done.signal()
        }
    }

    /// The journal is at `path`, for a run to `destination`.
    func open(path: String, destination: String) {
        request.withLock { $0 = .open(path: path, destination: destination) }
        requested.signal()
    }

    /// This run keeps no journal (`--no-resume`, or another command).
    func skip() {
        request.withLock { $0 = $0 ?? Request.none }
        requested.signal()
    }

    /// Whether a thread has begun to prepare the journal: asked before `prepared()`, the start-up thread.
    var hasBegun: Bool { claimed.load(ordering: .acquiring) }

    /// The journal locked, checked and migrated: prepared here unless the start-up thread has begun to.
    /// - Throws: `JournalError` for a journal that cannot be used.
    func prepared() throws(JournalError) -> PreparedJournal {
        guard case .open(let path, let destination)? = request.withLock({ $0 }) else {
            preconditionFailure("Invalid state: the journal is prepared before its path is given")
        }
        if claim() { return try Self.prepare(path, destination: destination).get() }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// Gives the journal up without a run: nothing is created if its preparation has not begun.
    func abandon() {
        guard !claim() else { return }
        done.wait()
        if case .success(let journal)? = outcome.withLock({ $0 }) { journal.release() }
    }

    private func claim() -> Bool {
        !claimed.exchange(true, ordering: .acquiringAndReleasing)
    }

    private static func prepare(_ path: String, destination: String) -> Result<PreparedJournal, JournalError> {
        Result { () throws(JournalError) in try SQLiteJournal.prepare(path: path, destination: destination) }
    }
}
