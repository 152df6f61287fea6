/// Folds samples of bytes sent into a rate over a sliding window and an ETA that does not swing.
public struct ProgressTracker: Sendable {
    private var samples: [(time: Duration, bytes: Int64)] = []
    private var smoothedRate: Double = 0
    private let window: Duration
    private var estimator = EtaEstimator()

    /// Creates a tracker with a rate window (default 5 s).
    public init(window: Duration = .seconds(5)) {
        self.window = window
    }

    /// Adds a sample and returns the rate (bytes/s) and the time left for `remaining` bytes.
    public mutating func sample(at time: Duration, bytesSent: Int64, remaining: Int64) -> (rate: Double, eta: Duration?)
    {
        // Samples are kept 100 ms apart but the newest, which follows the latest: a batch shorter than that
        // showed 0 B/s, its first sample taking every later one in.
        if samples.count >= 2, let last = samples.last, time - samples[samples.count - 2].time < .milliseconds(100) {
            samples[samples.count - 1] = (time, max(last.bytes, bytesSent))
        } else {
            samples.append((time, bytesSent))
        }
        while let first = samples.first, time - first.time > window, samples.count > 2 { samples.removeFirst() }
        guard let first = samples.first, let last = samples.last, last.time > first.time else { return (0, nil) }
        let seconds =
            Double((last.time - first.time).components.attoseconds) / 1e18
            + Double((last.time - first.time).components.seconds)
        let rate = max(0, Double(last.bytes - first.bytes) / seconds)
        // An exponential average keeps the ETA steady when one big file is left and rates jitter.
        smoothedRate = smoothedRate == 0 ? rate : smoothedRate * 0.8 + rate * 0.2
        guard remaining > 0 else { return (rate, .zero) }
        // Nothing moved for the whole window: the decaying average would promise hours, then years.
        guard rate > 0, smoothedRate > 1 else { return (rate, nil) }
        return (rate, .milliseconds(Int64(Double(remaining) / smoothedRate * 1000)))
    }

    /// Adds a sample and returns, besides the rate and the smoothed ETA, the ETA as a range that counts the requests
    /// the files left will cost (`EtaEstimator`). Under a bandwidth `cap` (bytes/s) neither comes sooner than the
    /// bytes left take at the cap; with the server's `answerWait` known (its processing, from the last byte sent to
    /// the answer), not sooner than the waves of `width` requests the files left need, each waiting that long.
    public mutating func sample(
        at time: Duration, bytesSent: Int64, remaining: Int64, files: PhaseCounts, cap: Int64? = nil,
        answerWait: Duration? = nil, width: Int = 1
    ) -> (rate: Double, eta: Duration?, range: EtaRange?) {
        let (rate, smoothed) = sample(at: time, bytesSent: bytesSent, remaining: remaining)
        var eta = smoothed
        var range = estimator.sample(
            at: time, bytesSent: bytesSent, filesFinished: files.done + files.failed, remainingBytes: remaining,
            remainingFiles: files.pending)
        if eta == nil { range = nil }
        var floors: [Duration] = []
        if let cap, cap > 0 {
            floors.append(.seconds(Int64((Double(max(0, remaining)) / Double(cap)).rounded(.up))))
        }
        // Each file left waits that long once sent, `width` of them at a time (those waiting hold their slots).
        if let answerWait, files.pending > 0 {
            floors.append(answerWait * ((files.pending + max(1, width) - 1) / max(1, width)))
        }
        if let floor = floors.max() {
            eta = eta.map { max($0, floor) }
            range = range.map { EtaRange(low: max($0.low, floor), high: max($0.high, floor)) }
        }
        return (rate, eta, range)
    }
}
