import Synchronization

/// The session's events, in order, for one reader: an `AsyncSequence` that hands over what has piled up as a batch.
///
/// An `AsyncStream` took its lock and made an async call per element: with four events a file that was a tenth
/// of a 10,000-file run's CPU. Here the writer appends under a lock and wakes the reader only when it waits; the
/// reader takes the whole pile at once, then walks it with no lock.
public final class UploadEvents: AsyncSequence, Sendable {
    public typealias Element = UploadEvent

    private struct State {
        var pending: [UploadEvent] = []
        var reader: CheckedContinuation<[UploadEvent], Never>?
        var finished = false
    }

    private let state = Mutex(State())

    /// Creates an open, empty sequence.
    public init() {}

    /// Adds an event; after `finish` it is dropped.
    func yield(_ event: UploadEvent) {
        let reader = state.withLock { state -> CheckedContinuation<[UploadEvent], Never>? in
            guard !state.finished else { return nil }
            guard let reader = state.reader else {
                state.pending.append(event)
                return nil
            }
            state.reader = nil
            return reader
        }
        reader?.resume(returning: [event])
    }

    /// Ends the sequence once the reader has taken what is pending.
    func finish() {
        let reader = state.withLock { state -> CheckedContinuation<[UploadEvent], Never>? in
            state.finished = true
            defer { state.reader = nil }
            return state.reader
        }
        reader?.resume(returning: [])
    }

    /// Everything pending, waiting for the next event when there is none; empty once finished (or the reading task
    /// is cancelled).
    fileprivate func take() async -> [UploadEvent] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let batch = state.withLock { state -> [UploadEvent]? in
                    if !state.pending.isEmpty || state.finished || Task.isCancelled {
                        defer { state.pending = [] }
                        return state.pending
                    }
                    state.reader = continuation
                    return nil
                }
                if let batch { continuation.resume(returning: batch) }
            }
        } onCancel: {
            let reader = state.withLock { state -> CheckedContinuation<[UploadEvent], Never>? in
                defer { state.reader = nil }
                return state.reader
            }
            reader?.resume(returning: [])
        }
    }

    public func makeAsyncIterator() -> Iterator {
        Iterator(events: self)
    }

    /// Walks each batch taken from the sequence.
    public struct Iterator: AsyncIteratorProtocol {
        let events: UploadEvents
        private var batch: [UploadEvent] = []
        private var index = 0

        init(events: UploadEvents) {
            self.events = events
        }

        public mutating func next() async -> UploadEvent? {
            if index == batch.count {
                batch = await nextBatch()
                index = 0
                if batch.isEmpty { return nil }
            }
            defer { index += 1 }
            return batch[index]
        }

        /// The events not yet read, at least one; empty at the end. For a reader that handles a batch at a time.
        public mutating func nextBatch() async -> [UploadEvent] {
            if index < batch.count {
                defer {
                    batch = []
                    index = 0
                }
                return Array(batch[index...])
            }
            return await events.take()
        }
    }
}
