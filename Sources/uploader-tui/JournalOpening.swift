import Dispatch
import Synchronization
import UploadData

/// Prepares the journal on another core while the files are scanned (issue 6: about 3 ms of every start), then
/// begins the run, or gives it up when the scan fails, so a mistyped path leaves no run behind.
final class JournalOpening: Sendable {
    private let outcome = Mutex<Result<PreparedJournal, JournalError>?>(nil)
    private let preparing = DispatchGroup()

    /// Starts preparing the journal at `path`.
    init(path: String) {
        preparing.enter()
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let result: Result<PreparedJournal, JournalError>
            do throws(JournalError) {
                result = .success(try SQLiteJournal.prepare(path: path))
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            preparing.leave()
        }
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
