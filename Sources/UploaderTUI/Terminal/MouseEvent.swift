/// A mouse button press or a wheel step at a cell of the screen, already decoded from curses' `MEVENT`.
public struct MouseEvent: Sendable, Hashable {
    /// What the mouse did.
    public enum Action: Sendable, Hashable {
        /// The left button went down.
        case press
        /// The wheel turned away from the user (scrolls up).
        case wheelUp
        /// The wheel turned toward the user (scrolls down).
        case wheelDown
    }

    public var action: Action
    /// Column, 0-based.
    public var x: Int
    /// Row, 0-based.
    public var y: Int

    /// Creates an event.
    public init(_ action: Action, x: Int, y: Int) {
        self.action = action
        self.x = x
        self.y = y
    }
}
