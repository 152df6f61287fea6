/// Decides when a frame may go to the terminal and which of its rows changed since the last one that did.
///
/// At most one flush per `minimumInterval` (30 frames/s by default), and only changed rows are written,
/// as bubbletea's renderer and htop's `Panel_draw` do.
public struct FrameFlusher: Sendable {
    /// Shortest time between two flushes.
    public let minimumInterval: Duration
    private var lastFlush: Duration?
    private var previous: Frame?

    /// Creates a flusher; the first frame is always due and written in full.
    public init(minimumInterval: Duration = .microseconds(33_334)) {
        self.minimumInterval = minimumInterval
    }

    /// True when a flush at `now` would respect the frame rate.
    public func isDue(at now: Duration) -> Bool {
        guard let lastFlush else { return true }
        return now - lastFlush >= minimumInterval
    }

    /// Records a flush of `frame` at `now` and returns the rows to write (all of them after a resize).
    public mutating func flush(_ frame: Frame, at now: Duration) -> [Int] {
        defer {
            previous = frame
            lastFlush = now
        }
        guard let previous, previous.size == frame.size else { return Array(0..<frame.size.rows) }
        return (0..<frame.size.rows).filter { previous.row($0) != frame.row($0) }
    }

    /// Forgets the last frame, so the next flush writes every row (after the screen was disturbed).
    public mutating func invalidate() {
        previous = nil
    }
}
