/// What the screen shows besides the session's data: selection, scroll, open panes and prompts.
public struct UIState: Sendable, Equatable {
    /// The view over the file list.
    public enum Pane: Sendable, Equatable {
        /// Just the list.
        case list
        /// The selected file's details over the list.
        case detail
        /// The key help.
        case help
    }

    /// A question waiting for y/n.
    public enum Prompt: Sendable, Equatable {
        /// `C`: cancel every file?
        case cancelAll
        /// `q` while transfers are active: quit anyway?
        case quit
    }

    /// The terminal size the state was laid out for.
    public var size: TerminalSize
    /// Index of the selected file in the snapshot's list (input order).
    public var selected: Int
    /// Index of the first file row shown.
    public var scrollTop: Int
    public var pane: Pane
    public var prompt: Prompt?
    /// The user chose to quit while uploads ran: the screen leaves once those in flight have finished.
    public var quitWhenIdle = false
    /// The latest notice, shown in the footer instead of the key hints (which `?` still lists).
    public var notice: String?

    /// Creates the state of a fresh screen.
    public init(size: TerminalSize, selected: Int = 0, scrollTop: Int = 0, pane: Pane = .list, prompt: Prompt? = nil) {
        self.size = size
        self.selected = selected
        self.scrollTop = scrollTop
        self.pane = pane
        self.prompt = prompt
    }

    /// Keeps the selection inside `count` files and the scroll window around the selection.
    public mutating func clamp(fileCount count: Int) {
        let height = Layout(size: size).listHeight
        selected = count == 0 ? 0 : min(max(0, selected), count - 1)
        if selected < scrollTop { scrollTop = selected }
        if height > 0, selected >= scrollTop + height { scrollTop = selected - height + 1 }
        scrollTop = max(0, min(scrollTop, max(0, count - height)))
    }
}
