import Foundation

/// Notices a transfer that no longer moves: an upload whose sent-byte count has not moved for `limit`
/// (`--stall-timeout`), a server that has not begun its answer `answerLimit` after the last byte
/// (`--response-timeout`: its processing may take long, but not for ever), an answer that stopped coming for
/// `limit`, and an upload's answer not whole `answerLimit` after the last byte (a server that trickles a byte a
/// second never stalls). A pause the user asked for is none of these.
struct StallWatch {
    /// What stopped moving.
    enum Stop: Equatable {
        case sending
        case answer
        case answering
        /// An upload's answer still coming `answerLimit` after the last byte.
        case answerTooLong
    }

    /// Nanoseconds without progress that make a stall; 0 switches the watch off.
    let limit: UInt64
    /// Nanoseconds after the last byte sent for the answer to begin; 0: as long as it takes.
    let answerLimit: UInt64
    private var lastSent: Int64 = -1
    private var lastReceived: Int64 = -1
    private var lastMove: UInt64 = 0
    /// When every byte was out, for the whole answer's deadline.
    private var allSentAt: UInt64?

    init(limit: UInt64, answerLimit: UInt64 = 0) {
        self.limit = limit
        self.answerLimit = answerLimit
    }

    /// Starts the clock again (at the start, and when a pause ends).
    mutating func restart(at now: UInt64) {
        lastMove = now
    }

    /// What stopped moving for longer than its limit, or nil.
    /// - Parameters:
    ///   - allSent: Every byte of the request is out (or it had none to send): the answer is awaited.
    ///   - received: Bytes of the final answer (headers and body) so far; 0 while none has come.
    ///   - wholeAnswerDue: The answer is a server's word on an upload, not a body read back: it must come whole within
    ///     `answerLimit` of the last byte, however it trickles.
    mutating func stop(
        sent: Int64, allSent: Bool, received: Int64 = 0, wholeAnswerDue: Bool = false, paused: Bool, now: UInt64
    ) -> Stop? {
        allSentAt = allSent && !paused ? allSentAt ?? now : nil
        if wholeAnswerDue, received > 0, answerLimit > 0, let allSentAt, now &- allSentAt > answerLimit {
            return .answerTooLong
        }
        if sent != lastSent || received != lastReceived || paused {
            lastSent = sent
            lastReceived = received
            lastMove = now
            return nil
        }
        let still = now &- lastMove
        if received > 0 { return limit > 0 && still > limit ? .answering : nil }
        if allSent { return answerLimit > 0 && still > answerLimit ? .answer : nil }
        return limit > 0 && still > limit ? .sending : nil
    }

    /// The monotonic clock in nanoseconds, to the kernel tick: read per chunk sent, it is a load from the vDSO page
    /// where the precise clock reads the TSC through the hypervisor's clock, which showed in a VM's profile.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
