import Synchronization

/// The `--concurrency` cap as a pool of slots, shared by the session (one per request) and by uploads made of
/// several requests (S3 parts), so transfers in flight never exceed the cap.
public final class TransferSlots: Sendable {
    private struct State {
        var capacity: Int
        var used = 0
        var onRelease: (@Sendable () -> Void)?
    }
    private let state: Mutex<State>

    /// Creates a pool of `capacity` slots.
    public init(capacity: Int) {
        state = Mutex(State(capacity: max(1, capacity)))
    }

    /// Slots in use now.
    public var used: Int { state.withLock { $0.used } }

    /// Slots free now.
    public var available: Int { state.withLock { max(0, $0.capacity - $0.used) } }

    /// Takes a slot if one is free.
    public func tryAcquire() -> Bool {
        state.withLock { state in
            guard state.used < state.capacity else { return false }
            state.used += 1
            return true
        }
    }

    /// Gives a slot back and tells the owner of the pool (the session schedules the next request).
    public func release() {
        let hook = state.withLock { state in
            state.used = max(0, state.used - 1)
            return state.onRelease
        }
        hook?()
    }

    func releaseQuietly() {
        state.withLock { $0.used = max(0, $0.used - 1) }
    }

    func setCapacity(_ capacity: Int) {
        state.withLock { $0.capacity = max(1, capacity) }
    }

    func onRelease(_ hook: @escaping @Sendable () -> Void) {
        state.withLock { $0.onRelease = hook }
    }
}
