/// An entry of a folder that the scan made no item of (hidden, left out by `--include`/`--exclude` or an age, a
/// subfolder without `--recursive`, not a regular file), and why: reported so that every entry is accounted for.
public struct LeftOutEntry: Sendable, Equatable {
    /// The path relative to the folder argument; a folder's ends with `/` (its entries are not listed).
    public let path: String
    /// Why it is not sent, one phrase (`hidden (--hidden sends it)`).
    public let reason: String

    /// Creates an entry.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}
