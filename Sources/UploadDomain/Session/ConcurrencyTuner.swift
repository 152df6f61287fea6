/// `--concurrency auto`: the width (requests in flight) chosen from measured goodput, the way TCP sizes its
/// congestion window. It starts at 4 and doubles while goodput grows by a tenth a step (slow start); after the
/// first step that does not pay, it goes back to the best width and from there probes one wider at a time
/// (additive increase), keeping a step only when goodput grew, and halves the width when requests start failing
/// (multiplicative decrease).
///
/// Pure: fed samples of the bytes sent, the failed attempts and whether every slot was in use; it says when the
/// width should change. A window in which the batch could not fill the slots (its end, files waiting to be
/// prepared) tells nothing about the link, and is not judged.
public struct ConcurrencyTuner: Sendable {
    /// What the session looked like at one moment.
    public struct Sample: Sendable {
        public var time: Duration
        /// Bytes sent so far, counting transfers in flight.
        public var bytesSent: Int64
        /// Attempts that failed so far (retried or final).
        public var failures: Int
        /// Every slot in use: the width, not the batch, limited what was sent.
        public var saturated: Bool

        /// Creates a sample.
        public init(time: Duration, bytesSent: Int64, failures: Int, saturated: Bool) {
            self.time = time
            self.bytesSent = bytesSent
            self.failures = failures
            self.saturated = saturated
        }
    }

    public static let range = 1...64
    public static let initialWidth = 4
    /// How long goodput is measured at one width; the first window after a change is left out, while the new
    /// transfers start.
    public static let window: Duration = .seconds(1)
    /// Windows at the best width before the next probe one wider.
    static let holdWindows = 3

    private enum Phase { case slowStart, steady }

    public private(set) var width: Int
    private var phase = Phase.slowStart
    /// The goodput of `bestWidth`, bytes/s.
    private var bestRate: Double?
    private var bestWidth: Int
    private var windowStart: Sample?
    private var settling = true
    private var held = 0

    /// Creates a tuner at `width` (4 unless a test says otherwise).
    public init(width: Int = Self.initialWidth) {
        self.width = min(max(width, Self.range.lowerBound), Self.range.upperBound)
        bestWidth = self.width
    }

    /// Takes a sample; returns the new width when it should change.
    public mutating func observe(_ sample: Sample) -> Int? {
        guard sample.saturated else {
            windowStart = nil
            return nil
        }
        guard let start = windowStart else {
            windowStart = sample
            return nil
        }
        let elapsed = sample.time - start.time
        guard elapsed >= Self.window else { return nil }
        windowStart = sample
        if settling {
            settling = false
            return nil
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = Double(sample.bytesSent - start.bytesSent) / seconds
        return decide(rate: rate, failed: sample.failures > start.failures)
    }

    private mutating func decide(rate: Double, failed: Bool) -> Int? {
        if failed {
            phase = .steady
            bestRate = nil
            return change(to: max(Self.range.lowerBound, width / 2))
        }
        guard let best = bestRate else {
            (bestRate, bestWidth) = (rate, width)
            return phase == .slowStart ? change(to: width * 2) : nil
        }
        switch phase {
        case .slowStart:
            if rate > best * 1.1 {
                (bestRate, bestWidth) = (rate, width)
                return change(to: width * 2)
            }
            phase = .steady
            return change(to: bestWidth)
        case .steady where width > bestWidth:
            // A probe one wider: kept when it paid, else back.
            if rate > best * 1.05 {
                (bestRate, bestWidth) = (rate, width)
                return change(to: width + 1)
            }
            return change(to: bestWidth)
        case .steady:
            // At the best width the link may have changed: its goodput now is the reference.
            bestRate = rate
            held += 1
            guard held >= Self.holdWindows else { return nil }
            held = 0
            return change(to: width + 1)
        }
    }

    private mutating func change(to proposed: Int) -> Int? {
        let next = min(max(proposed, Self.range.lowerBound), Self.range.upperBound)
        guard next != width else { return nil }
        width = next
        settling = true
        windowStart = nil
        return next
    }
}
