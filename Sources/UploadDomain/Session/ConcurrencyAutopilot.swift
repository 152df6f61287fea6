/// Drives a session's width with a `ConcurrencyTuner` while `--concurrency auto` holds: samples the session a few
/// times a second and hands the tuner's widths to it. It ends when cancelled or once the user sets a width.
public enum ConcurrencyAutopilot {
    /// How often the session is sampled; the tuner judges whole windows of several samples.
    static let interval: Duration = .milliseconds(250)

    /// Runs until the task is cancelled or the session's width is no longer automatic.
    public static func run(_ session: UploadSession, clock: any UploadClock = SystemClock()) async {
        var tuner = ConcurrencyTuner(width: await session.snapshot().concurrency)
        while (try? await clock.sleep(for: interval)) != nil {
            let snapshot = await session.snapshot()
            guard snapshot.concurrencyIsAuto else { return }
            let failures = snapshot.files.reduce(0) { sum, file in
                sum + max(0, file.attempt - 1) + (file.phase == .failed ? 1 : 0)
            }
            let sample = ConcurrencyTuner.Sample(
                time: clock.now, bytesSent: snapshot.progress.bytesSent, failures: failures,
                saturated: !snapshot.isIdle && snapshot.transfersInFlight >= snapshot.concurrency)
            if let width = tuner.observe(sample) { await session.handle(.tuneConcurrency(width)) }
        }
    }
}
