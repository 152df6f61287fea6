import UploadDomain

/// Something the app loop must do beyond sending commands to the session.
public enum Effect: Sendable, Equatable {
    /// Leave the screen.
    case quit
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
        var state = state
        let count = snapshot.files.count
        switch event {
        case .tick:
            state.clamp(fileCount: count)
            return Update(state: state)
        case .resize(let cols, let rows):
            state.size = TerminalSize(cols: cols, rows: rows)
            state.clamp(fileCount: count)
            return Update(state: state)
        case .key(let key):
            if let prompt = state.prompt {
                return answer(prompt, key: key, state: state)
            }
            var update = handle(key, state: state, snapshot: snapshot)
            update.state.clamp(fileCount: count)
            return update
        }
    }

    private static func answer(_ prompt: UIState.Prompt, key: Key, state: UIState) -> Update {
        var state = state
        state.prompt = nil
        guard key == .character("y") || key == .character("Y") else { return Update(state: state) }
        switch prompt {
        case .cancelAll: return Update(state: state, commands: [.stop])
        case .quit:
            state.quitWhenIdle = true
            return Update(state: state, commands: [.stop])
        }
    }

    private static func handle(_ key: Key, state: UIState, snapshot: UploadSnapshot) -> Update {
        var state = state
        let files = snapshot.files
        let selected = files.indices.contains(state.selected) ? files[state.selected] : nil
        let page = max(1, Layout(size: state.size).listHeight - 1)
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
        case .end, .character("G"): state.selected = files.count - 1
        case .enter:
            state.pane = state.pane == .detail ? .list : (selected == nil ? state.pane : .detail)
        case .escape:
            state.pane = .list
        case .character("?"):
            state.pane = state.pane == .help ? .list : .help
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
            // With nothing retryable selected, r means every failed file, as R does.
            if snapshot.progress.counts.failed > 0 { return Update(state: state, commands: [.retryAllFailed]) }
        case .character("R"):
            if snapshot.progress.counts.failed > 0 { return Update(state: state, commands: [.retryAllFailed]) }
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
        case .character("+"), .character("="):
            return Update(state: state, commands: [.setConcurrency(min(64, snapshot.concurrency + 1))])
        case .character("-"), .character("_"):
            if snapshot.concurrency > 1 {
                return Update(state: state, commands: [.setConcurrency(snapshot.concurrency - 1)])
            }
        case .character("["):
            // Without a cap, the first step down starts below what the batch moves now.
            let limit = snapshot.bandwidthLimit
            let lower = BandwidthLadder.lower(limit, measuredRate: snapshot.progress.bytesPerSecond)
            if lower != limit { return Update(state: state, commands: [.setBandwidthLimit(lower)]) }
        case .character("]"):
            if let limit = snapshot.bandwidthLimit {
                return Update(state: state, commands: [.setBandwidthLimit(BandwidthLadder.raise(limit))])
            }
        default:
            break
        }
        return Update(state: state)
    }
}
