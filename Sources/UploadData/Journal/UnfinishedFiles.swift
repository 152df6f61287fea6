/// The files `--retry-failed` sends: those earlier runs to a destination did not finish.
public struct UnfinishedFiles: Sendable, Equatable {
    /// Files whose last outcome there was failed, cancelled or started.
    public var listed: Set<String>
    /// The files recorded done there, when the last run to it was cut off (a kill, a power cut): the files it had
    /// not reached yet have no record at all, so every file not done is unfinished.
    public var doneWhenCutOff: Set<String>?

    /// Creates the set.
    public init(listed: Set<String>, doneWhenCutOff: Set<String>? = nil) {
        self.listed = listed
        self.doneWhenCutOff = doneWhenCutOff
    }

    /// Whether the file at `path` is one to send again.
    public func contains(_ path: String) -> Bool {
        listed.contains(path) || doneWhenCutOff.map { !$0.contains(path) } ?? false
    }
}
