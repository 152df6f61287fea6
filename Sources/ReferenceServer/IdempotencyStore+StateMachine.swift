extension IdempotencyStore {
    /// The keys the server has seen and what became of their first request. Events return what the
    /// route must do and do no I/O; ``IdempotencyStore`` drives it under a lock.
    struct StateMachine {
        /// The life of one key; a key with no entry has never been seen, or is forgotten.
        private enum State {
            /// A request with the key is being processed.
            /// -> completed (`finished` with 2xx), forgotten (`finished` otherwise, or `abandoned`)
            case inFlight(Scope, token: UInt64)
            /// The first request with the key succeeded; its answer is kept for replays.
            /// -> forgotten (its time to live passed, or it was the oldest when over capacity)
            case completed(Scope, Completed, expiresAt: Double)
        }

        /// What the route does with a request that carries a key.
        enum BeginAction: Equatable, Sendable {
            /// The key is new: process the request, then report `finished` or `abandoned` with the claim.
            case process(Claim)
            /// A request with the key and the same method and path is in flight: drain, then 409.
            case conflict
            /// The key belongs to another method or path: drain, then 422.
            case mismatch
            /// The key's first request succeeded: drain computing the fingerprint; replay the answer
            /// if it matches, else 422.
            case compare(Completed)
        }

        /// What became of a claim when its request ended.
        enum EndAction: Equatable, Sendable {
            /// The answer is kept for replays.
            case recorded
            /// The key is forgotten; the next request with it is processed as new.
            case released
            /// The claim had already ended (`abandoned` after `finished`).
            case none
        }

        private let timeToLive: Double
        private let capacity: Int
        private let byteBudget: Int
        private var entries: [String: State] = [:]
        /// Completed keys, oldest first. Every key here is `completed` in `entries` and nothing else
        /// removes a completed key, so the queue and the dictionary never disagree. With one time to
        /// live the oldest is also the first to expire.
        private var order: [String] = []
        /// Index of the oldest live key in `order`; the consumed prefix is dropped in batches.
        private var orderStart = 0
        private var recordedBytes = 0
        private var nextToken: UInt64 = 0

        /// - Parameters:
        ///   - timeToLive: seconds a completed key is remembered.
        ///   - capacity: most completed keys remembered; beyond it the oldest is forgotten.
        ///   - byteBudget: most response body bytes remembered; beyond it the oldest is forgotten.
        init(timeToLive: Double, capacity: Int, byteBudget: Int) {
            self.timeToLive = timeToLive
            self.capacity = max(1, capacity)
            self.byteBudget = byteBudget
        }

        /// Completed keys remembered.
        var completedCount: Int { order.count - orderStart }

        /// A request with `key` for `scope` arrived at `now` (seconds).
        mutating func begin(key: String, scope: Scope, now: Double) -> BeginAction {
            forgetExpired(now: now)
            switch entries[key] {
            case nil:
                nextToken += 1
                entries[key] = .inFlight(scope, token: nextToken)
                return .process(Claim(key: key, token: nextToken))
            case .inFlight(let owner, _):
                return owner == scope ? .conflict : .mismatch
            case .completed(let owner, let completed, _):
                return owner == scope ? .compare(completed) : .mismatch
            }
        }

        /// The claimed request produced `response` at `now`: a 2xx answer is kept, anything else
        /// releases the key.
        mutating func finished(
            _ claim: Claim, fingerprint: RequestFingerprint, response: RecordedResponse, now: Double
        ) -> EndAction {
            guard case .inFlight(let scope, let token) = entries[claim.key], token == claim.token else {
                preconditionFailure("Invalid state: finished for \(claim.key), which is not in flight under this claim")
            }
            guard response.isSuccess else {
                entries[claim.key] = nil
                return .released
            }
            let completed = Completed(fingerprint: fingerprint, response: response)
            entries[claim.key] = .completed(scope, completed, expiresAt: now + timeToLive)
            order.append(claim.key)
            recordedBytes += response.body.readableBytes
            forgetExpired(now: now)
            while completedCount > capacity || (recordedBytes > byteBudget && completedCount > 1) {
                forgetOldest()
            }
            return .recorded
        }

        /// The claimed request ended without an answer to keep (an error was thrown, the client
        /// went away). Safe to call after ``finished(_:fingerprint:response:now:)``: then it does
        /// nothing, which lets routes call it from a `defer`.
        mutating func abandoned(_ claim: Claim) -> EndAction {
            guard case .inFlight(_, let token) = entries[claim.key], token == claim.token else { return .none }
            entries[claim.key] = nil
            return .released
        }

        private mutating func forgetExpired(now: Double) {
            while orderStart < order.count {
                guard case .completed(_, _, let expiresAt) = entries[order[orderStart]] else {
                    preconditionFailure("Invalid state: \(order[orderStart]) queued but not completed")
                }
                guard expiresAt <= now else { return }
                forgetOldest()
            }
        }

        private mutating func forgetOldest() {
            let key = order[orderStart]
            guard case .completed(_, let completed, _) = entries.removeValue(forKey: key) else {
                preconditionFailure("Invalid state: \(key) queued but not completed")
            }
            recordedBytes -= completed.response.body.readableBytes
            orderStart += 1
            // Drop the consumed prefix once it is the larger half: amortised O(1) per key.
            if orderStart > 1024, orderStart * 2 > order.count {
                order.removeFirst(orderStart)
                orderStart = 0
            }
        }
    }
}
