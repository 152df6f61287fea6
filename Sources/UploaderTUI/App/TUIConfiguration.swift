import Foundation
import UploadDomain

/// How the terminal UI runs.
public struct TUIConfiguration: Sendable {
    /// The folder or files being uploaded, as the header shows them.
    public var source: String
    /// Where they go, secrets already removed.
    public var destination: String
    /// Leave as soon as the batch is idle instead of waiting for `q`.
    public var exitWhenDone: Bool
    /// False draws without colours (`--no-color`); `NO_COLOR` in the environment also turns them off.
    public var useColor: Bool
    /// Report clicks and wheel steps to the screen; the terminal then selects text only with Shift held.
    public var mouse: Bool
    /// Makes the previews of the selected image; nil shows none.
    public var thumbnails: (any ThumbnailSource)?
    /// The variables that choose the previews' colours (`COLORTERM`, `NO_COLOR`); the process's by default.
    public var environment = ProcessInfo.processInfo.environment
    /// One-line notices found while the batch runs ("3 of 24 files carry a GPS location…"), shown in the footer.
    public var notices: AsyncStream<String>?
    /// The batch runs in a process of its own: `d` leaves the screen and the run goes on.
    public var canDetach = false
    /// The other screens attached to the run now: while there are any, `q` leaves this one as `d` does.
    public var otherScreens: (@Sendable () -> Int)?
    /// The batch is the last screen of a run that has ended (`attach` after an end nobody watched): keys that would
    /// command it are neither offered nor taken.
    public var isReplay = false
    /// The goodput of the seconds before this screen came (a screen attached to a running batch), for the graph.
    public var recentRates: RateHistory?

    /// Creates a configuration.
    public init(
        source: String, destination: String, exitWhenDone: Bool = false, useColor: Bool = true,
        mouse: Bool = true, thumbnails: (any ThumbnailSource)? = nil, notices: AsyncStream<String>? = nil
    ) {
        self.thumbnails = thumbnails
        self.mouse = mouse
        self.source = source
        self.destination = destination
        self.exitWhenDone = exitWhenDone
        self.useColor = useColor
        self.notices = notices
    }
}

/// How the terminal UI ended.
public enum TUIOutcome: Sendable, Equatable {
    /// The batch was idle when the user quit, or `exitWhenDone` ended it.
    case finished
    /// The user quit (or the task was cancelled) with work still pending.
    case quitEarly
    /// The user pressed `d`: the screen leaves, the run goes on.
    case detached
}
