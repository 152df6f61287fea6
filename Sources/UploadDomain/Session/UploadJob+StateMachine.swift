/// The life of one file across its attempts.
public struct UploadJob: Sendable {
    /// The per-file state machine; events return an `Action` and do no I/O.
    public struct StateMachine: Sendable {
        private enum State: Sendable {
            /// -> willStart (start), preparing (beginPreparing), cancelled (cancel), skipped (skip)
            case queued
            /// An image being prepared. -> queued (prepared), failed (preparationFailed), cancelled (cancel)
            case preparing
            /// Request handed to the transport, no byte out yet.
            /// -> uploading (bytesSent), modeling (allSent), done/failed/queued (finished), cancelling (cancel)
            case willStart
            /// -> modeling (allSent), done/failed/queued (finished), cancelling (cancel)
            case uploading
            /// Every byte sent; waiting for the response. -> verifying (verifyBegan), done/failed/queued (finished),
            /// cancelling (cancel)
            case modeling
            /// The server answered; its stored copy is being read back. -> done/failed/queued (finished),
            /// cancelling (cancel)
            case verifying
            /// Cancel asked, transfer still winding down. -> cancelled, or done if the response won the race
            case cancelling
            /// Backing off before another attempt. -> queued (backoffElapsed), cancelled (cancel)
            case waitingToRetry
            /// -> queued (retry)
            case done
            /// -> queued (retry)
            case failed
            /// -> queued (retry)
            case cancelled
            /// Final: the journal says it is already uploaded.
            case skipped
        }

        /// What the session must do after an event.
        public enum Action: Equatable, Sendable {
            case none
            case startTransfer(attempt: Int)
            case emit(UploadPhase)
            case cancelTransfer
            case scheduleRetry(after: Duration)
            case enqueue
        }

        private var state: State = .queued
        /// Attempts started so far.
        public private(set) var attempt = 0

        /// Creates a machine in `queued`.
        public init() {}

        /// The phase users see.
        public var phase: UploadPhase {
            switch state {
            case .queued, .waitingToRetry: .queued
            case .preparing: .preparing
            case .willStart: .willStart
            case .uploading: .uploading
            case .modeling, .cancelling: .modeling
            case .verifying: .verifying
            case .done: .done
            case .failed: .failed
            case .cancelled: .cancelled
            case .skipped: .skipped
            }
        }

        /// True while a transfer for the file is in flight (including one being cancelled).
        public var isInFlight: Bool {
            switch state {
            case .willStart, .uploading, .modeling, .verifying, .cancelling: true
            default: false
            }
        }

        /// The scheduler picked the file.
        public mutating func start() -> Action {
            guard case .queued = state else { preconditionFailure("Invalid state: start in \(state)") }
            attempt += 1
            state = .willStart
            return .startTransfer(attempt: attempt)
        }

        /// Request bytes went out.
        public mutating func bytesSent() -> Action {
            guard case .willStart = state else { return .none }
            state = .uploading
            return .emit(.uploading)
        }

        /// The last request byte went out: from here until the response is `modeling`.
        public mutating func allSent() -> Action {
            switch state {
            case .willStart, .uploading:
                state = .modeling
                return .emit(.modeling)
            default:
                return .none
            }
        }

        /// The server answered with success and its stored copy is read back (`--verify`).
        public mutating func verifyBegan() -> Action {
            switch state {
            case .willStart, .uploading, .modeling:
                state = .verifying
                return .emit(.verifying)
            default:
                return .none  // cancelling: the read-back is torn down with the request
            }
        }

        /// The server answered with success.
        public mutating func succeeded() -> Action {
            switch state {
            case .willStart, .uploading, .modeling, .verifying, .cancelling:
                state = .done
                return .emit(.done)
            default:
                preconditionFailure("Invalid state: succeeded in \(state)")
            }
        }

        /// The attempt failed; `retryAfter` is the policy's delay, nil when it gives up.
        public mutating func failed(retryAfter: Duration?) -> Action {
            switch state {
            case .cancelling:
                state = .cancelled
                return .emit(.cancelled)
            case .willStart, .uploading, .modeling, .verifying:
                if let retryAfter {
                    state = .waitingToRetry
                    return .scheduleRetry(after: retryAfter)
                }
                state = .failed
                return .emit(.failed)
            default:
                preconditionFailure("Invalid state: failed in \(state)")
            }
        }

        /// The request was torn down for another file's sake (a batch-mate was cancelled): queue it again.
        public mutating func interrupted() -> Action {
            switch state {
            case .cancelling:
                state = .cancelled
                return .emit(.cancelled)
            case .willStart, .uploading, .modeling, .verifying:
                state = .queued
                return .enqueue
            default:
                preconditionFailure("Invalid state: interrupted in \(state)")
            }
        }

        /// The request never left (a batch-mate could not be read): back in line, the attempt not counted.
        public mutating func unstarted() -> Action {
            guard case .willStart = state else { return interrupted() }
            attempt -= 1
            state = .queued
            return .enqueue
        }

        /// A backoff delay elapsed.
        public mutating func backoffElapsed() -> Action {
            guard case .waitingToRetry = state else { return .none }
            state = .queued
            return .enqueue
        }

        /// Preparing the image (resize, re-encode) begins.
        public mutating func beginPreparing() -> Action {
            guard case .queued = state else { preconditionFailure("Invalid state: beginPreparing in \(state)") }
            state = .preparing
            return .emit(.preparing)
        }

        /// The prepared file is ready: back in line to be sent.
        public mutating func prepared() -> Action {
            guard case .preparing = state else { return .none }
            state = .queued
            return .enqueue
        }

        /// The image could not be prepared: final, like a failure no retry cures.
        public mutating func preparationFailed() -> Action {
            guard case .preparing = state else { return .none }
            attempt += 1
            state = .failed
            return .emit(.failed)
        }

        /// The user (or the batch) cancels the file.
        public mutating func cancel() -> Action {
            switch state {
            case .queued, .waitingToRetry, .preparing:
                state = .cancelled
                return .emit(.cancelled)
            case .willStart, .uploading, .modeling, .verifying:
                state = .cancelling
                return .cancelTransfer
            case .cancelling, .done, .failed, .cancelled, .skipped:
                return .none
            }
        }

        /// The user asks for another try of a failed or cancelled file.
        public mutating func retry() -> Action {
            switch state {
            case .failed, .cancelled:
                state = .queued
                return .enqueue
            default:
                return .none
            }
        }

        /// The journal says the file is already uploaded.
        public mutating func skip() -> Action {
            guard case .queued = state else { preconditionFailure("Invalid state: skip in \(state)") }
            state = .skipped
            return .emit(.skipped)
        }
    }
}
