import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a run leaves beside its socket (`<id>.json`): who it is while it runs, and once it has ended its exit
/// status. Its last snapshot, for `attach` to show until the person has seen it, is a file of its own
/// (`<id>.last.json`): with every row it is large, and `ps` reads only records.
public struct RunRecord: Codable, Sendable {
    public var info: RunInfo
    /// Set when the run ended.
    public var exitCode: Int32?
    /// When it ended, seconds since 1970.
    public var endedAt: Double?
    /// A screen showed the end (attached when it came, or attached since).
    public var seen: Bool

    /// A record of a run that has just started.
    public init(info: RunInfo) {
        self.info = info
        seen = false
    }

    /// Whether the run has ended.
    public var hasEnded: Bool { exitCode != nil }

    /// Reads the record of `id`; nil when there is none or it cannot be read.
    public static func read(_ id: String, in directory: RunDirectory) -> RunRecord? {
        guard let data = FileManager.default.contents(atPath: directory.recordPath(id)) else { return nil }
        return try? JSONDecoder().decode(RunRecord.self, from: data)
    }

    /// Writes the record (0600) by renaming a full copy over the old one, so a reader never sees half of it.
    public func write(in directory: RunDirectory) throws {
        try Self.write(try JSONEncoder().encode(self), to: directory.recordPath(info.id))
    }

    /// The screen run `id` ended with; nil once a screen has shown it (or when it cannot be read).
    public static func readLast(_ id: String, in directory: RunDirectory) -> LastScreen? {
        guard let data = FileManager.default.contents(atPath: directory.lastPath(id)) else { return nil }
        let decoder = JSONDecoder()
        // A run of an earlier version kept the snapshot alone.
        return (try? decoder.decode(LastScreen.self, from: data))
            ?? (try? decoder.decode(WireSnapshot.self, from: data)).map { LastScreen(snapshot: $0) }
    }

    /// Keeps `last` as the screen run `id` ended with, for `attach`.
    public static func writeLast(_ last: LastScreen, id: String, in directory: RunDirectory) throws {
        try write(try JSONEncoder().encode(last), to: directory.lastPath(id))
    }

    /// Forgets the last snapshot of run `id`: a screen has shown it.
    public static func removeLast(_ id: String, in directory: RunDirectory) {
        unlink(directory.lastPath(id))
    }

    private static func write(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == data.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }
}

/// What the screen of a run that ended unwatched shows when it is attached: every row, the graph's last minute and
/// each file's curl command (the run process that could answer for them is gone).
public struct LastScreen: Codable, Sendable, Equatable {
    public var snapshot: WireSnapshot
    /// Bytes per second, a reading a second, oldest first.
    public var rates: [Double]
    /// By row; empty when not kept.
    public var curlCommands: [String]

    public init(snapshot: WireSnapshot, rates: [Double] = [], curlCommands: [String] = []) {
        self.snapshot = snapshot
        self.rates = rates
        self.curlCommands = curlCommands
    }
}
