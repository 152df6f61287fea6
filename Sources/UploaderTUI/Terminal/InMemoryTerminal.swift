import Synchronization

/// A terminal kept in memory: tests send events to it and read back the screen and what was written.
public final class InMemoryTerminal: Terminal {
    private struct State {
        var screen: Frame
        var writes: [[Int]] = []
        var clipboard: [String] = []
        var closed = false
    }

    public let initialSize: TerminalSize
    public let capabilities: TerminalCapabilities
    public let events: AsyncStream<TerminalEvent>
    private let sink: AsyncStream<TerminalEvent>.Continuation
    private let state: Mutex<State>

    /// Creates a blank screen of `size`.
    public init(
        size: TerminalSize, capabilities: TerminalCapabilities = TerminalCapabilities(unicode: true, color: true)
    ) {
        initialSize = size
        self.capabilities = capabilities
        (events, sink) = AsyncStream.makeStream(of: TerminalEvent.self, bufferingPolicy: .unbounded)
        state = Mutex(State(screen: Frame(size: size)))
    }

    /// Queues an event for the app loop, as a key press or resize would.
    public func send(_ event: TerminalEvent) {
        sink.yield(event)
    }

    /// Queues several events in order.
    public func send(_ events: [TerminalEvent]) {
        for event in events { sink.yield(event) }
    }

    /// Ends the event stream, as a terminal that went away would.
    public func finishEvents() {
        sink.finish()
    }

    /// What the screen shows now.
    public var screen: Frame { state.withLock { $0.screen } }

    /// The rows written by each flush, in order.
    public var writes: [[Int]] { state.withLock { $0.writes } }

    /// The OSC 52 sequences written, in order, exactly as a real terminal would receive them.
    public var clipboardWrites: [String] { state.withLock { $0.clipboard } }

    /// True once `close()` ran.
    public var isClosed: Bool { state.withLock { $0.closed } }

    public func write(_ frame: Frame, rows: [Int]) {
        state.withLock { state in
            if state.screen.size != frame.size { state.screen = Frame(size: frame.size) }
            state.screen.copyRows(rows, from: frame)
            state.writes.append(rows)
        }
    }

    public func setClipboard(_ text: String) {
        state.withLock { $0.clipboard.append(OSC52.sequence(text)) }
    }

    public func close() async {
        state.withLock { $0.closed = true }
        sink.finish()
    }
}

extension Frame {
    /// Copies rows `rows` of `other` (same size) into this frame.
    mutating func copyRows(_ rows: [Int], from other: Frame) {
        guard other.size == size else { return }
        for y in rows where y >= 0 && y < size.rows {
            for x in 0..<size.cols { setCell(other[x, y], x: x, y: y) }
        }
    }
}
