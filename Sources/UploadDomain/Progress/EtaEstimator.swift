/// The time left as a range: the batch will most likely end between `low` and `high` from now.
public struct EtaRange: Sendable, Equatable {
    public var low: Duration
    public var high: Duration

    /// Creates a range; `low` is clamped to zero and to at most `high`.
    public init(low: Duration, high: Duration) {
        self.high = max(.zero, high)
        self.low = min(self.high, max(.zero, low))
    }
}

/// Estimates the time left from the last 30 s of work, counting bytes and requests apart.
///
/// Every file costs a request whatever its size, so a byte rate alone (rclone's ETA) is wrong whenever the files
/// left are smaller or larger than those just sent. Each second of the window is fitted as `a·files + b·bytes`:
/// `a` is the wall time a finished file costs beyond its bytes (the per-request overhead, already shared by the
/// concurrent slots), `1/b` the goodput. The range is the fit's uncertainty, carried to the work left, plus the
/// seconds' own jitter over the seconds left; it narrows as the window fills and as the work left shrinks.
public struct EtaEstimator: Sendable {
    /// How far back the samples reach.
    public static let window: Duration = .seconds(30)
    /// Samples closer than this to the previous one are ignored: the range moves once a second.
    public static let spacing: Duration = .seconds(1)
    /// Intervals needed before any range is given.
    public static let minimumIntervals = 3

    private struct Sample {
        var time: Duration
        var bytes: Int64
        var files: Int
    }

    private var samples: [Sample] = []
    private var cached: EtaRange?

    /// Creates an empty estimator.
    public init() {}

    /// Adds a reading of the batch and returns the range for the work left; nil until three seconds are seen or
    /// while nothing moves.
    /// - Parameters:
    ///   - time: the injected clock's reading.
    ///   - bytesSent: the batch's bytes sent so far (a drop after a retry counts as no progress).
    ///   - filesFinished: files that left the transfer slots (done, failed or cancelled).
    ///   - remainingBytes: bytes still to send.
    ///   - remainingFiles: files whose request has not finished, those in flight included.
    public mutating func sample(
        at time: Duration, bytesSent: Int64, filesFinished: Int, remainingBytes: Int64, remainingFiles: Int
    ) -> EtaRange? {
        if let last = samples.last, time - last.time < Self.spacing { return cached }
        samples.append(Sample(time: time, bytes: bytesSent, files: filesFinished))
        while samples.count > 2, time - samples[1].time >= Self.window { samples.removeFirst() }
        cached = Self.estimate(
            intervals: intervals(), remainingBytes: max(0, remainingBytes), remainingFiles: max(0, remainingFiles))
        return cached
    }

    private func intervals() -> [Interval] {
        zip(samples, samples.dropFirst()).map { earlier, later in
            Interval(
                seconds: Self.seconds(later.time - earlier.time), files: Double(max(0, later.files - earlier.files)),
                bytes: Double(max(0, later.bytes - earlier.bytes)))
        }
    }

    /// One step of the window: how long it took and the work it did.
    struct Interval {
        var seconds: Double
        var files: Double
        var bytes: Double
    }

    /// The range for `remainingBytes` and `remainingFiles` from `intervals`, or nil when they say nothing.
    static func estimate(intervals: [Interval], remainingBytes: Int64, remainingFiles: Int) -> EtaRange? {
        guard intervals.count >= minimumIntervals else { return nil }
        if remainingBytes == 0 && remainingFiles == 0 { return EtaRange(low: .zero, high: .zero) }
        let fit = Fit(intervals)
        guard let fit else { return nil }
        let bytes = Double(remainingBytes)
        let files = Double(remainingFiles)
        var centre = fit.overhead * files + fit.secondsPerByte * bytes
        var spread = 0.0
        if fit.collinear, fit.filesOnlyRate > 0 {
            // Files of one size in the window: overhead and goodput cannot be told apart, so the files left are
            // timed both ways and the range spans both.
            let byFiles = files * fit.filesOnlyRate
            spread = abs(byFiles - centre) / 2
            centre = (byFiles + centre) / 2
        }
        let meanStep = intervals.reduce(0) { $0 + $1.seconds } / Double(intervals.count)
        let variance = fit.variance(files: files, bytes: bytes) + fit.noise * max(0, centre) / max(meanStep, 0.001)
        // About 90% of outcomes under normal errors.
        let half = 1.645 * variance.squareRoot() + spread
        guard centre.isFinite, half.isFinite else { return nil }
        return EtaRange(low: duration(centre - half), high: duration(centre + half))
    }

    /// The least-squares fit of each interval's seconds to `overhead·files + secondsPerByte·bytes`, no intercept.
    struct Fit {
        var overhead = 0.0
        var secondsPerByte = 0.0
        /// Seconds per finished file with bytes ignored, for the collinear case.
        var filesOnlyRate = 0.0
        var collinear = false
        /// Residual variance of one interval, in seconds squared.
        var noise = 0.0
        private var sums = (ff: 0.0, bb: 0.0, fb: 0.0)
        private var determinant = 0.0
        private var bothTerms = false

        init?(_ intervals: [Interval]) {
            var tf = 0.0
            var tb = 0.0
            var total = (seconds: 0.0, files: 0.0, bytes: 0.0)
            for step in intervals {
                sums.ff += step.files * step.files
                sums.bb += step.bytes * step.bytes
                sums.fb += step.files * step.bytes
                tf += step.seconds * step.files
                tb += step.seconds * step.bytes
                total.seconds += step.seconds
                total.files += step.files
                total.bytes += step.bytes
            }
            guard sums.bb > 0 else { return nil }
            // One term alone is the ratio of the window's time to its work: files that finish in bursts (four
            // every two seconds when each request waits on the server) made the least-squares slope, which weighs
            // each second by its count, half the time they really take.
            if total.files > 0 { filesOnlyRate = total.seconds / total.files }
            determinant = sums.ff * sums.bb - sums.fb * sums.fb
            if sums.ff > 0, determinant / (sums.ff * sums.bb) >= 0.05 {
                let a = (tf * sums.bb - tb * sums.fb) / determinant
                let b = (tb * sums.ff - tf * sums.fb) / determinant
                if a >= 0, b >= 0 {
                    overhead = a
                    secondsPerByte = b
                    bothTerms = true
                }
            } else if sums.ff > 0 {
                collinear = true
            }
            // Without a usable second term (or with a negative one) the bytes alone explain the time.
            if !bothTerms { secondsPerByte = total.seconds / total.bytes }
            var squares = 0.0
            for step in intervals {
                let residual = step.seconds - overhead * step.files - secondsPerByte * step.bytes
                squares += residual * residual
            }
            noise = squares / Double(max(1, intervals.count - (bothTerms ? 2 : 1)))
        }

        /// The variance of the fitted time for `files` and `bytes`, from the coefficients' uncertainty.
        func variance(files: Double, bytes: Double) -> Double {
            guard bothTerms else { return noise * bytes * bytes / sums.bb }
            let form = files * files * sums.bb - 2 * files * bytes * sums.fb + bytes * bytes * sums.ff
            return noise * max(0, form) / determinant
        }
    }

    /// Whole seconds, so the screen, the progress line and NDJSON all show the same figures.
    private static func duration(_ seconds: Double) -> Duration {
        .seconds(Int64(max(0, min(seconds, 360_000)).rounded()))
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
