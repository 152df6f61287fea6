/// One file's upload rate over its last half second or more, rather than since its attempt began: a file that sped
/// up when others finished, slowed under a new cap or was paused shows what it moves now.
struct RecentRate {
    private var mark: (time: Duration, sent: Int64)?
    private var rate = 0.0

    /// Shortest span a rate is measured over: progress callbacks come in bursts.
    static let window = 0.5

    /// The rate after `sent` bytes at `now`, halfway between the last span's and the one before, as a row redrawn
    /// 30 times a second should not flicker; until the first span ends, the average since `started`.
    mutating func update(sent: Int64, at now: Duration, started: Duration) -> Double {
        guard let mark else {
            self.mark = (now, sent)
            return Self.average(sent, since: started, at: now)
        }
        let elapsed = Self.seconds(now - mark.time)
        guard elapsed >= Self.window else { return rate > 0 ? rate : Self.average(sent, since: started, at: now) }
        let current = Double(max(0, sent - mark.sent)) / elapsed
        rate = rate > 0 ? (rate + current) / 2 : current
        self.mark = (now, sent)
        return rate
    }

    private static func average(_ sent: Int64, since started: Duration, at now: Duration) -> Double {
        let seconds = seconds(now - started)
        return seconds > 0 ? Double(sent) / seconds : 0
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
