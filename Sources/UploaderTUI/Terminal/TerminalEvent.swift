/// The size of a terminal in character cells.
public struct TerminalSize: Sendable, Hashable, CustomStringConvertible {
    /// Columns.
    public var cols: Int
    /// Rows.
    public var rows: Int

    /// Creates a size; negative values count as zero.
    public init(cols: Int, rows: Int) {
        self.cols = max(0, cols)
        self.rows = max(0, rows)
    }

    /// `100x30`.
    public var description: String { "\(cols)x\(rows)" }
}

/// A key the user pressed, already decoded; raw curses key codes never leave the adapter.
public enum Key: Sendable, Hashable {
    /// A printable character (`q`, `R`, `+`, `?`, …).
    case character(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case enter, escape, tab, backTab, backspace, delete
    /// Ctrl plus a letter (`control("l")` for Ctrl-L).
    case control(Character)
    /// A key the adapter could not name.
    case unknown
}

/// Something the terminal reports to the app loop.
public enum TerminalEvent: Sendable, Hashable {
    /// A key press.
    case key(Key)
    /// A click or a wheel step (only when the terminal reports the mouse).
    case mouse(MouseEvent)
    /// The terminal now has this many columns and rows.
    case resize(cols: Int, rows: Int)
    /// Time passed with no input; the loop samples the session and redraws.
    case tick
}
