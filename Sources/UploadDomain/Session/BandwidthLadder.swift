/// The caps `[` and `]` step through on the screen: round rates a user can read at a glance, then no cap.
public enum BandwidthLadder {
    /// Bytes per second, lowest first: 256 KiB/s to 100 MiB/s.
    public static let steps: [Int64] = [
        256 << 10, 512 << 10, 1 << 20, 2 << 20, 5 << 20, 10 << 20, 20 << 20, 50 << 20, 100 << 20,
    ]

    /// The cap one step lower (`[`).
    /// - Parameters:
    ///   - limit: the cap now; nil for none.
    ///   - measuredRate: the batch's rate now, bytes per second; where a batch without a cap starts from.
    /// - Returns: the highest step below `limit`, or below the measured rate when there is no cap (the top step
    ///   when nothing is measured yet); a cap already below the lowest step stays.
    public static func lower(_ limit: Int64?, measuredRate: Double) -> Int64? {
        guard let limit else {
            guard measuredRate > 0 else { return steps.last }
            return steps.last { Double($0) < measuredRate } ?? steps[0]
        }
        return steps.last { $0 < limit } ?? limit
    }

    /// The cap one step higher (`]`): the lowest step above `limit`; past the top step, no cap.
    public static func raise(_ limit: Int64?) -> Int64? {
        guard let limit else { return nil }
        return steps.first { $0 > limit }
    }
}
