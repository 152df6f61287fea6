import UploadDomain

/// Something the app loop must do beyond sending commands to the session.
public enum Effect: Sendable, Equatable {
    /// Leave the screen.
    case quit
    /// Leave the screen and the run going (`d`).
    case detach
    /// Put this text on the system clipboard (OSC 52).
    case setClipboard(String)
}

/// The result of one event: the new UI state, commands for the session and an optional effect.
public struct Update: Sendable, Equatable {
    public var state: UIState
    public var commands: [UploadCommand]
    public var effect: Effect?

    /// Creates an update.
    public init(state: UIState, commands: [UploadCommand] = [], effect: Effect? = nil) {
        self.state = state
        self.commands = commands
        self.effect = effect
    }
}

/// The pure update function: what each key does, given the UI state and the latest snapshot.
public enum KeyMap {
    /// Applies `event` to `state`.
    /// - Parameters:
    ///   - state: the UI state before the event.
    ///   - event: a key, a resize or a tick.
    ///   - snapshot: the session as last sampled; decides what the selected file allows.
    /// - Returns: the new state, the commands to send and whether to quit.
    public static func update(_ state: UIState, _ event: TerminalEvent, _ snapshot: UploadSnapshot) -> Update {
        var update = step(state, event, snapshot)
        // The details of another file, or details opened again, start at their top; so does the help.
        if update.state.pane != .detail || update.state.selected != state.selected { update.state.detailScroll = 0 }
        if update.state.pane != .help { update.state.helpScroll = 0 }
        return update
    }

    private static func step(_ state: UIState, _ event: TerminalEvent, _ snapshot: UploadSnapshot) -> Update {
        var state = state
        switch event {
        case .tick:
            state.clamp(fileCount: state.visibleRows(snapshot.files).count)
            state.asked.settle(with: snapshot)
            return Update(state: state)
        case .resize(let cols, let rows):
            state.size = TerminalSize(cols: cols, rows: rows)
            state.clamp(fileCount: state.visibleRows(snapshot.files).count)
            return Update(state: state)
        case .key(let key):
            state.status = nil
            // A notice gives the key hints back at the next key: it was read.
            state.notice = nil
            if let prompt = state.prompt {
                return answer(prompt, key: key, state: state)
            }
            if state.isSearching, let update = search(key, state: state, snapshot: snapshot) {
                return update
            }
            if state.pane == .detail, let offset = scrolled(state.detailScroll, by: key, size: state.size) {
                state.detailScroll = offset
                return Update(state: state)
            }
            if state.pane == .help {
                if let offset = scrolled(state.helpScroll, by: key, size: state.size) {
                    state.helpScroll = offset
                    return Update(state: state)
                }
                // The help hides the list: a key that acts on the selected file would act on one nobody sees.
                if case .character(let character) = key, Self.selectionKeys.contains(character) {
                    state.status =
                        "\(character == " " ? "Space" : String(character)) acts on the selected file: "
                        + "? or Esc closes the help first"
                    return Update(state: state)
                }
            }
            var update = handle(key, state: state, snapshot: snapshot)
            update.state.clamp(fileCount: update.state.visibleRows(snapshot.files).count)
            return update
        case .mouse(let mouse):
            // A question waits for y or n; a stray click must not answer it or act behind it.
            guard state.prompt == nil else { return Update(state: state) }
            state.status = nil
            var update = Update(state: pointed(mouse, state: state, snapshot: snapshot))
            update.state.clamp(fileCount: update.state.visibleRows(snapshot.files).count)
            return update
        }
    }

    /// A key while the search prompt is open; nil for keys that keep their usual meaning (arrows, pages).
    private static func search(_ key: Key, state: UIState, snapshot: UploadSnapshot) -> Update? {
        var next = state
        switch key {
        case .character(let character): next.search.append(character)
        case .backspace, .delete: if !next.search.isEmpty { next.search.removeLast() }
        case .enter: next.isSearching = false
        case .escape:
            next.search = ""
            next.isSearching = false
        default: return nil
        }
        return Update(state: refilter(next, from: state, snapshot))
    }

    /// Keeps the selected file selected when the filter or search changes, if it stays visible; otherwise the
    /// selection goes to the first visible row.
    private static func refilter(_ state: UIState, from old: UIState, _ snapshot: UploadSnapshot) -> UIState {
        var state = state
        let files = snapshot.files
        let kept = old.selectedFile(in: files, visible: old.visibleRows(files))?.id
        let visible = state.visibleRows(files)
        state.selected = visible.firstIndex { files[$0].id == kept } ?? 0
        if state.selected == 0 { state.scrollTop = 0 }
        state.clamp(fileCount: visible.count)
        return state
    }

    /// The text `y` or `Y` copies for `file`, with the footer's confirmation.
    private static func copy(_ key: Character, _ file: FileSnapshot?, state: UIState) -> Update {
        var state = state
        guard let file else { return Update(state: state) }
        let name = Sanitizer.displayName(file.name)
        let text: String
        let what: String
        if key == "y" {
            // The command names the token `$UPLOADER_TOKEN` and leaves other secrets redacted (the planners build it).
            text = file.curlCommand
            what = "curl command"
        } else {
            // The line the list and NDJSON give: the file, the cause, the status and the server's words.
            text = file.error.map { Sanitizer.displayName($0.forFile(file.name).description) } ?? ""
            what = "error line"
        }
        guard !text.isEmpty else {
            state.status = "no \(what) to copy for \(name)"
            return Update(state: state)
        }
        state.status = "copied \(what) (\(text.utf8.count) bytes)"
        return Update(state: state, effect: .setClipboard(text))
    }

    private static func answer(_ prompt: UIState.Prompt, key: Key, state: UIState) -> Update {
        var state = state
        state.prompt = nil
        if prompt == .quit, state.canDetach, key == .character("d") { return Update(state: state, effect: .detach) }
        guard key == .character("y") || key == .character("Y") else { return Update(state: state) }
        switch prompt {
        case .cancelAll: return Update(state: state, commands: [.stop])
        case .quit:
            // A screen that attached while this one asked keeps the run: this one only leaves.
            if state.canDetach, state.otherScreens > 0 { return Update(state: state, effect: .detach) }
            state.quitWhenIdle = true
            return Update(state: state, commands: [.stop])
        }
    }

    /// The open details or help scroll with the keys that move the selection on the list: `offset` moved by `key`,
    /// nil for other keys. The app loop keeps the offset within the pane's rows.
    private static func scrolled(_ offset: Int, by key: Key, size: TerminalSize) -> Int? {
        let layout = Layout(size: size)
        // The pane's body, less one row kept from the page before.
        let page = max(1, layout.footerRow - layout.toastRow - 3)
        let moved: Int
        switch key {
        case .up, .character("k"): moved = offset - 1
        case .down, .character("j"): moved = offset + 1
        case .pageUp: moved = offset - page
        case .pageDown: moved = offset + page
        case .home, .character("g"): moved = 0
        case .end, .character("G"): moved = Int(Int32.max)
        default: return nil
        }
        return max(0, moved)
    }

    /// The keys that act on the selected file.
    private static let selectionKeys: Set<Character> = ["r", "c", "p", " ", "y", "Y"]

    /// The keys that command the run rather than the screen.
    private static let commandKeys: Set<Character> = ["r", "R", "c", "C", "p", " ", "+", "=", "-", "_", "[", "]"]

    private static func handle(_ key: Key, state: UIState, snapshot: UploadSnapshot) -> Update {
        var state = state
        let files = snapshot.files
        let visible = state.visibleRows(files)
        let selected = state.selectedFile(in: files, visible: visible)
        let page = max(1, Layout(size: state.size).listHeight - 1)
        // A replayed run's process is gone: a key that would command it says so instead of doing nothing.
        if state.isReplay, case .character(let character) = key, Self.commandKeys.contains(character) {
            state.status = "this run has ended: keys cannot change it"
            return Update(state: state)
        }
        switch key {
        case .up, .character("k"): state.selected -= 1
        case .down, .character("j"): state.selected += 1
        case .pageUp:
            state.selected -= page
            state.scrollTop -= page
        case .pageDown:
            state.selected += page
            state.scrollTop += page
        case .home, .character("g"): state.selected = 0
        case .end, .character("G"): state.selected = visible.count - 1
        case .enter:
            state.pane = state.pane == .detail ? .list : (selected == nil ? state.pane : .detail)
        case .escape:
            // Esc closes a pane first; on the bare list it shows every file again: the search and the filter go, as
            // "No files match — f or Esc shows more" says.
            if state.pane == .list, state.isFiltered {
                var cleared = state
                cleared.search = ""
                cleared.filter = .all
                return Update(state: refilter(cleared, from: state, snapshot))
            }
            state.pane = .list
        case .character("f"):
            var next = state
            next.filter = state.filter.next
            return Update(state: refilter(next, from: state, snapshot))
        case .character("/"):
            var next = state
            next.isSearching = true
            next.search = ""
            next.pane = .list
            return Update(state: refilter(next, from: state, snapshot))
        case .character("y"), .character("Y"):
            if case .character(let character) = key { return copy(character, selected, state: state) }
        case .character("d") where state.canDetach:
            return Update(state: state, effect: .detach)
        case .character("q") where state.isReplay:
            return Update(state: state, effect: .quit)
        case .character("?"):
            state.pane = state.pane == .help ? .list : .help
        // Other screens watch the run: q leaves this one, as d does, and stops nothing under them.
        case .character("q") where state.canDetach && state.otherScreens > 0 && !snapshot.isIdle:
            return Update(state: state, effect: .detach)
        case .character("q") where snapshot.stopping != nil && !snapshot.isIdle:
            return Update(state: state, commands: [.cancelAll], effect: .quit)
        case .character("q"):
            if snapshot.progress.counts.pending > 0 {
                state.prompt = .quit
                return Update(state: state)
            }
            return Update(state: state, effect: .quit)
        case .character("r"):
            if let file = selected, file.phase == .failed || file.phase == .cancelled {
                return Update(state: state, commands: [.retry(fileID: file.id)])
            }
            // With nothing retryable selected, r means every file not done, as R does.
            if snapshot.progress.counts.unfinished > 0 { return Update(state: state, commands: [.retryUnfinished]) }
        case .character("R"):
            if snapshot.progress.counts.unfinished > 0 { return Update(state: state, commands: [.retryUnfinished]) }
        case .character("c"):
            if let file = selected, !file.phase.isFinal {
                return Update(state: state, commands: [.cancel(fileID: file.id)])
            }
        case .character("C") where snapshot.stopping != nil:
            return Update(state: state, commands: [.cancelAll])
        case .character("C"):
            if snapshot.progress.counts.pending > 0 { state.prompt = .cancelAll }
        case .character("p"), .character(" "):
            if let file = selected, file.phase.isActive {
                return Update(state: state, commands: [.togglePause(fileID: file.id)])
            }
        case .character("+"), .character("="), .character("-"), .character("_"):
            let width = state.asked.concurrency ?? snapshot.concurrency
            let next = key == .character("+") || key == .character("=") ? min(64, width + 1) : max(1, width - 1)
            guard next != width else { break }
            state.asked.concurrency = next
            state.asked.ticksLeft = UIState.AskedSettings.patience
            return Update(state: state, commands: [.setConcurrency(next)])
        case .character("["), .character("]"):
            let limit = state.asked.bandwidthLimit ?? snapshot.bandwidthLimit
            let next: Int64?
            if key == .character("[") {
                // Without a cap, the first step down starts below what the batch moves now.
                next = BandwidthLadder.lower(limit, measuredRate: snapshot.progress.bytesPerSecond)
            } else if let limit {
                next = BandwidthLadder.raise(limit)
            } else {
                break
            }
            guard next != limit else { break }
            state.asked.bandwidthLimit = .some(next)
            state.asked.ticksLeft = UIState.AskedSettings.patience
            return Update(state: state, commands: [.setBandwidthLimit(next)])
        default:
            break
        }
        return Update(state: state)
    }
}
