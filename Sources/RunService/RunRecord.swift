import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a run leaves beside its socket (`<id>.json`): who it is while it runs, and once it has ended its exit
/// status and last snapshot, for `attach` to show until the person has seen it.
public struct RunRecord: Codable, Sendable {
    public var info: RunInfo
    /// Set when the run ended.
    public var exitCode: Int32?
    /// When it ended, seconds since 1970.
    public var endedAt: Double?
    /// A screen showed the end (attached when it came, or attached since).
    public var seen: Bool
    /// The batch as it ended.
    public var last: WireSnapshot?

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
        let data = try JSONEncoder().encode(self)
        let path = directory.recordPath(info.id)
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
