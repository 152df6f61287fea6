import UploadDomain

/// The files `--retry-failed` sends: those earlier runs to a destination did not finish.
public struct UnfinishedFiles: Sendable, Equatable {
    /// A run to the destination that did not end (a kill, a power cut): the files it had not reached yet have no
    /// record of their own.
    public struct CutOff: Sendable, Equatable {
        /// When the latest such run began: a file changed since is no file of its batch.
        public var startedAt: Double
        /// The files recorded done there.
        public var done: Set<String>

        /// Creates the state.
        public init(startedAt: Double, done: Set<String>) {
            self.startedAt = startedAt
            self.done = done
        }
    }

    /// Files whose last outcome there was failed, cancelled or started.
    public var listed: Set<String>
    public var cutOff: CutOff?

    /// Creates the set.
    public init(listed: Set<String>, cutOff: CutOff? = nil) {
        self.listed = listed
        self.cutOff = cutOff
    }

    /// Whether `item` is a file to send again: one with an unfinished record, or, after a run that was cut off, one
    /// that was there when it began and is not recorded done.
    public func contains(_ item: UploadItem) -> Bool {
        if listed.contains(item.path) { return true }
        guard let cutOff else { return false }
        return item.modified < cutOff.startedAt && !cutOff.done.contains(item.path)
    }
}
