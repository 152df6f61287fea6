/// Which files found in the folders are sent, and in which order (`--include`, `--exclude`, `--max-age`,
/// `--min-age`, `--order-by`). Files named on the command line are always sent: the person chose them.
public struct FileSelection: Sendable {
    /// The order of the batch; nil keeps the order of the arguments, each folder's files by name.
    public struct Order: Sendable, Equatable {
        public enum Key: String, Sendable, CaseIterable {
            case name, size, mtime
        }

        public var key: Key
        public var descending: Bool

        public init(_ key: Key, descending: Bool = false) {
            self.key = key
            self.descending = descending
        }
    }

    /// A file in a folder is sent only if it matches one of these (when any are given)…
    public var includes: [GlobPattern]
    /// …and none of these: an exclude wins over an include, whatever their order.
    public var excludes: [GlobPattern]
    /// Only files modified at most this many seconds before the scan (`--max-age`).
    public var maxAge: Double?
    /// Only files modified at least this many seconds before the scan (`--min-age`).
    public var minAge: Double?
    public var order: Order?

    public init(
        includes: [GlobPattern] = [], excludes: [GlobPattern] = [], maxAge: Double? = nil, minAge: Double? = nil,
        order: Order? = nil
    ) {
        self.includes = includes
        self.excludes = excludes
        self.maxAge = maxAge
        self.minAge = minAge
        self.order = order
    }

    /// True when the name patterns let `path` (relative to its folder argument) through.
    public func admits(_ path: String) -> Bool {
        if excludes.contains(where: { $0.matches(path) }) { return false }
        return includes.isEmpty || includes.contains { $0.matches(path) }
    }

    /// True when nothing inside the folder `path` can be sent, so the scan need not list it.
    public func prunes(folder path: String) -> Bool {
        excludes.contains { $0.coversFolder(path) }
    }

    /// True when a file modified at `modified` (seconds since 1970) is within the ages, seen at `now`.
    public func admits(modified: Double, now: Double) -> Bool {
        let age = now - modified
        if let maxAge, age > maxAge { return false }
        if let minAge, age < minAge { return false }
        return true
    }

    /// True when the ages can leave files out.
    public var filtersByAge: Bool { maxAge != nil || minAge != nil }

    /// `items` in `order`: ties keep their order; nil keeps them as they are.
    public func ordered(_ items: [UploadItem]) -> [UploadItem] {
        guard let order else { return items }
        let indexed = Array(items.enumerated())
        let sorted = indexed.sorted { a, b in
            let (x, y) = order.descending ? (b.element, a.element) : (a.element, b.element)
            switch order.key {
            case .name:
                if x.relativePath != y.relativePath { return x.relativePath < y.relativePath }
            case .size:
                if x.size != y.size { return x.size < y.size }
            case .mtime:
                if x.modified != y.modified { return x.modified < y.modified }
            }
            return a.offset < b.offset
        }
        return sorted.map(\.element)
    }
}
