import UploadDomain

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
    /// Position of the selected file among the visible rows (`visibleRows`), input order.
    public var selected: Int
    /// Position among the visible rows of the first row shown.
    public var scrollTop: Int
    public var pane: Pane
    /// Rows the detail pane's body is scrolled by; the app loop keeps it within what the pane holds.
    public var detailScroll = 0
    /// Rows the help is scrolled by, for a terminal too short for every key; the app loop keeps it within them.
    public var helpScroll = 0
    public var prompt: Prompt?
    /// The user chose to quit while uploads ran: the screen leaves once those in flight have finished.
    public var quitWhenIdle = false
    /// The latest notice, shown in the footer instead of the key hints (which `?` still lists), until the next key
    /// or for `noticeTime`.
    public var notice: String?
    static let noticeTime: Duration = .seconds(15)
    /// Feedback to the last key (`copied curl command (342 bytes)`): shown in the footer until the next key.
    public var status: String?
    /// Which files the list shows (`f`).
    public var filter: ListFilter = .all
    /// The name search (`/`): a case-insensitive substring; empty shows every file the filter lets through.
    public var search = ""
    /// True while the search prompt on the bottom line takes the keys.
    public var isSearching = false
    /// The run lives in a process of its own, so `d` can leave it running (issue 18).
    public var canDetach = false
    /// Other screens attached to the same run: `q` then leaves this one as `d` does, and the run goes on for them.
    public var otherScreens = 0
    /// The screen is the last one of a run that has ended, shown again by `attach`: no key can change that run, so
    /// none is offered.
    public var isReplay = false
    /// The batch's goodput over the last minute, for the sparkline.
    public var rates = RateHistory()
    /// The selected file's preview, when the screen draws previews; the loop sets it before each frame.
    public var preview: Preview?
    /// The width and cap last asked for by key, until a snapshot shows them: a run in its own process answers a
    /// moment later, and the next `+` or `]` steps from what was asked, so quick presses each count.
    public var asked = AskedSettings()

    /// What `+`/`-` and `[`/`]` asked for and snapshots have not shown yet.
    public struct AskedSettings: Equatable, Sendable {
        public var concurrency: Int?
        /// `.some(nil)`: the cap was removed.
        public var bandwidthLimit: Int64??
        /// Ticks left before the asked values give way to the snapshot's anyway (a request the run did not take).
        public var ticksLeft = 0

        static let patience = 30

        /// Forgets what `snapshot` shows or what has waited too long.
        mutating func settle(with snapshot: UploadSnapshot) {
            if concurrency == snapshot.concurrency { concurrency = nil }
            if let limit = bandwidthLimit, limit == snapshot.bandwidthLimit { bandwidthLimit = nil }
            ticksLeft -= 1
            if ticksLeft <= 0 { self = AskedSettings() }
        }
    }

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

extension UIState {
    /// True when the filter or the search hides some files.
    public var isFiltered: Bool { filter != .all || !search.isEmpty }

    /// Indices into `files` of the rows the list shows, in input order.
    public func visibleRows(_ files: [FileSnapshot]) -> VisibleRows {
        guard isFiltered else { return .all(files.count) }
        let needle = search.lowercased()
        return .only(
            files.indices.filter { index in
                filter.includes(files[index]) && (needle.isEmpty || files[index].name.lowercased().contains(needle))
            })
    }

    /// The selected file, if the list shows any.
    public func selectedFile(in files: [FileSnapshot], visible: VisibleRows) -> FileSnapshot? {
        visible.indices.contains(selected) ? files[visible[selected]] : nil
    }
}
