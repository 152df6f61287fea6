/// The batch's goodput over the last minute, one sample per second, for the sparkline under the overall bar.
///
/// Goodput is the growth of `BatchProgress.bytesSent`: bytes of finished files plus bytes handed to the network
/// for files in flight. A retry that starts a file over makes that figure shrink; the drop counts as zero, so
/// the graph never shows the same bytes twice as progress lost. Time comes from the caller, so tests script it.
public struct RateHistory: Sendable, Equatable {
    /// Seconds kept.
    public static let capacity = 60

    /// Bytes per second of each completed second, oldest first; at most `capacity`.
    public private(set) var samples: [Double] = []
    /// The second being filled, counted from the clock's origin (the run's start); nil in a history seeded with
    /// samples until its first reading.
    private var second: Int64? = 0
    private var pending = 0.0
    // An empty history starts as if read at the origin with nothing sent: the bytes sent before its first reading
    // belong to the seconds since the run's start, not to none.
    private var lastBytes: Int64 = 0
    private var lastTime = 0.0

    /// Creates an empty history, whose clock starts with the run.
    public init() {}

    /// Creates a history holding `samples` (bytes per second, oldest first): what a run sent a screen attaching to it.
    /// The bytes before the next reading are in them: that reading only starts the clock.
    public init(samples: [Double]) {
        self.samples = Array(samples.suffix(Self.capacity))
        if !samples.isEmpty { second = nil }
    }

    /// Adds a reading of the batch's `bytesSent` taken at `now`; a second that passes closes its sample.
    ///
    /// The bytes since the last reading are shared among the seconds between the two readings by time: a reading
    /// late by a second (a busy loop, a run process nobody watched) spreads them, where putting them all in one
    /// second drew a peak above a `--bwlimit` the batch kept.
    public mutating func record(bytesSent: Int64, at now: Duration) {
        let time = Double(now.components.seconds) + Double(now.components.attoseconds) / 1e18
        guard var open = second else {
            second = now.components.seconds
            lastBytes = bytesSent
            lastTime = time
            return
        }
        let moved = Double(max(0, bytesSent - lastBytes))
        let span = time - lastTime
        var from = lastTime
        lastBytes = bytesSent
        lastTime = time
        // A gap longer than the window: only its last seconds can show.
        let oldest = now.components.seconds - Int64(Self.capacity)
        if open < oldest {
            open = oldest
            from = max(from, Double(oldest))
            pending = 0
        }
        while Double(open + 1) <= time {
            let boundary = Double(open + 1)
            pending += span > 0 ? moved * (boundary - from) / span : 0
            from = boundary
            append(pending)
            pending = 0
            open += 1
        }
        pending += span > 0 ? moved * (time - from) / span : moved
        second = open
    }

    /// The highest second in the window; 0 when empty.
    public var peak: Double { samples.max() ?? 0 }

    /// The last completed second; 0 when empty.
    public var current: Double { samples.last ?? 0 }

    private mutating func append(_ value: Double) {
        samples.append(value)
        if samples.count > Self.capacity { samples.removeFirst(samples.count - Self.capacity) }
    }

    /// The window squeezed or padded to `width` cells, newest at the right: each cell the mean of the seconds
    /// it covers, nil where the window reaches back before the first sample.
    public func cells(width: Int) -> [Double?] {
        guard width > 0 else { return [] }
        let slots: [Double?] =
            Array(repeating: nil, count: Self.capacity - samples.count) + samples.map { Optional($0) }
        let shown = min(width, Self.capacity)
        return (0..<shown).map { cell in
            let range = (cell * Self.capacity / shown)..<((cell + 1) * Self.capacity / shown)
            let values = slots[range].compactMap { $0 }
            return values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
        }
    }
}
