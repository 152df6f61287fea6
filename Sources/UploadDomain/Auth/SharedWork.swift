import Synchronization

/// Work several tasks wait for together (one presign request for a batch of files, one token refresh). It is
/// cancelled once every task waiting for it has been cancelled: a stopped batch does not wait on a server that
/// takes its time to answer a request no file needs any more.
public final class SharedWork<Success: Sendable>: Sendable {
    private let task: Task<Success, Never>
    /// Tasks waiting, and how many of them are cancelled.
    private let waiters = Mutex((waiting: 0, cancelled: 0))

    /// Tasks waiting now (for tests).
    var waiting: Int { waiters.withLock { $0.waiting } }

    public init(_ operation: @escaping @Sendable () async -> Success) {
        task = Task(operation: operation)
    }

    /// The work's outcome; waits for it. A cancelled caller still waits, until every other caller is cancelled
    /// too and the work, cancelled, ends. A caller that comes after that finds the work cancelled: it may start
    /// the work anew.
    public func value() async -> Success {
        waiters.withLock { $0.waiting += 1 }
        defer {
            let cancelled = Task.isCancelled
            waiters.withLock {
                $0.waiting -= 1
                if cancelled { $0.cancelled -= 1 }
            }
        }
        return await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            let everyone = waiters.withLock { state in
                state.cancelled += 1
                return state.cancelled >= state.waiting
            }
            if everyone { task.cancel() }
        }
    }
}
