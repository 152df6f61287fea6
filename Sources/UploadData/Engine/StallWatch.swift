import Foundation

/// Notices an upload whose sent-byte count has not moved for `limit` (`--stall-timeout`).
///
/// Only the sending side counts: once every byte is out, waiting for the server's answer is not a stall,
/// and neither is a pause the user asked for.
struct StallWatch {
    /// Nanoseconds without progress that make a stall; 0 switches the watch off.
    let limit: UInt64
    private var lastSent: Int64 = -1
    private var lastMove: UInt64 = 0

    init(limit: UInt64) {
        self.limit = limit
    }

    /// Starts the clock again (at the start, and when a pause ends).
    mutating func restart(at now: UInt64) {
        lastMove = now
    }

    /// True when nothing was sent for longer than the limit.
    mutating func isStalled(sent: Int64, total: Int64, paused: Bool, now: UInt64) -> Bool {
        guard limit > 0 else { return false }
        if sent != lastSent || paused || (total > 0 && sent >= total) {
            lastSent = sent
            lastMove = now
            return false
        }
        return now &- lastMove > limit
    }

    /// The monotonic clock in nanoseconds, to the kernel tick: read per chunk sent, it is a load from the vDSO page
    /// where the precise clock reads the TSC through the hypervisor's clock, which showed in a VM's profile.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
