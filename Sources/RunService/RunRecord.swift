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

    /// The batch as run `id` ended; nil once a screen has shown it (or when it cannot be read).
    public static func readLast(_ id: String, in directory: RunDirectory) -> WireSnapshot? {
        guard let data = FileManager.default.contents(atPath: directory.lastPath(id)) else { return nil }
        return try? JSONDecoder().decode(WireSnapshot.self, from: data)
    }

    /// Keeps `snapshot` as the batch run `id` ended with, for `attach`.
    public static func writeLast(_ snapshot: WireSnapshot, id: String, in directory: RunDirectory) throws {
        try write(try JSONEncoder().encode(snapshot), to: directory.lastPath(id))
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
