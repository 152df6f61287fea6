import Dispatch
import Synchronization
import UploadData

/// Prepares the journal on another core while the arguments are parsed and the files scanned (issue 6), then
/// begins the run, or gives it up when the scan fails, so a mistyped path leaves no run behind.
///
/// Its thread starts with `main`: on a 2-core VM a new thread ran 2 ms after it was asked for while the main thread
/// kept the other core busy, which put the journal last on the way to the first request. Until the path is
/// parsed, the thread runs SQLite's and GRDB's one-time set-up on an in-memory database.
final class JournalOpening: Sendable {
    private enum Request {
        case open(path: String)
        case none
    }

    private let request = Mutex<Request?>(nil)
    private let requested = DispatchSemaphore(value: 0)
    private let outcome = Mutex<Result<PreparedJournal, JournalError>?>(nil)
    private let preparing = DispatchGroup()

    /// Starts the thread; `open(path:)` or `skip()` says what it does next.
    init() {
        preparing.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            SQLiteJournal.warmUp()
            requested.wait()
            if case .open(let path)? = request.withLock({ $0 }) {
                let result: Result<PreparedJournal, JournalError>
                do throws(JournalError) {
                    result = .success(try SQLiteJournal.prepare(path: path))
                } catch {
                    result = .failure(error)
                }
                outcome.withLock { $0 = result }
            }
            preparing.leave()
        }
    }

    /// Prepares the journal at `path`: locks, checks and migrates it.
    func open(path: String) {
        request.withLock { $0 = .open(path: path) }
        requested.signal()
    }

    /// This run keeps no journal (`--no-resume`, or another command).
    func skip() {
        request.withLock { $0 = $0 ?? Request.none }
        requested.signal()
    }

    /// Waits for the preparation and records the run's start.
    /// - Throws: `JournalError` for a journal that cannot be used.
    func begin(destination: String, arguments: String) throws(JournalError) -> SQLiteJournal {
        try prepared().get().begin(destination: destination, arguments: arguments)
    }

    /// Waits for the preparation and releases the journal without a run.
    func abandon() {
        if case .success(let journal) = prepared() { journal.release() }
    }

    private func prepared() -> Result<PreparedJournal, JournalError> {
        preparing.wait()
        return outcome.withLock { $0! }
    }
}
