import Synchronization

/// Text built the first time it is read, then kept: a file's reproducing `curl` command is shown only in
/// the details pane, so building it for every queued file would slow the start of a large batch.
///
/// Equality is identity: every snapshot of a file shares its session's instance.
public final class LazyText: Sendable, Equatable {
    private let build: @Sendable () -> String?
    private let built = Mutex<String?>(nil)

    /// Text that `build` makes on first read; while it has none yet (nil), it is asked again on each read.
    public init(_ build: @escaping @Sendable () -> String?) {
        self.build = build
    }

    /// The text, built now if it was not yet; empty while there is none yet.
    public var text: String {
        if let text = built.withLock({ $0 }) { return text }
        guard let text = build() else { return "" }
        built.withLock { $0 = text }
        return text
    }

    public static func == (lhs: LazyText, rhs: LazyText) -> Bool { lhs === rhs }
}
