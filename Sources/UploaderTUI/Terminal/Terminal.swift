/// What a terminal offers beyond its size.
public struct TerminalCapabilities: Sendable, Hashable {
    /// The locale can show UTF-8 (block characters, box drawing, CJK); otherwise draw in ASCII.
    public var unicode: Bool
    /// Colours are available and wanted (`NO_COLOR` unset, `--no-color` not given).
    public var color: Bool
    /// Colours the terminal can show: 8, 256, or 16,777,216 for a `*-direct` terminfo that takes RGB.
    public var colorCount: Int

    /// Creates capabilities.
    public init(unicode: Bool, color: Bool, colorCount: Int = 256) {
        self.unicode = unicode
        self.color = color
        self.colorCount = color ? colorCount : 0
    }

    /// The terminal takes RGB colour numbers (`COLORS` of a `*-direct` terminfo).
    public var directColor: Bool { colorCount >= 1 << 24 }
}

/// A screen the app loop draws frames on and reads typed events from.
///
/// `CursesTerminal` drives a real TTY through ncurses; `InMemoryTerminal` keeps the screen as cells
/// so the loop can be tested without one.
public protocol Terminal: AnyObject, Sendable {
    /// The size when the terminal started; later sizes arrive as `.resize` events.
    var initialSize: TerminalSize { get }
    /// What the terminal can draw.
    var capabilities: TerminalCapabilities { get }
    /// Keys, resizes and ticks, in order; finishes when the terminal closes.
    var events: AsyncStream<TerminalEvent> { get }
    /// Writes the given rows of `frame` (the ones that changed since the last write) and shows them.
    func write(_ frame: Frame, rows: [Int])
    /// Puts `text` on the system clipboard with OSC 52, which reaches the local clipboard through tmux and SSH.
    /// The sequence goes out after the rows already written, so it never lands inside a frame.
    func setClipboard(_ text: String)
    /// Restores the terminal; returns once it is restored. Calling it twice is harmless.
    func close() async
}
