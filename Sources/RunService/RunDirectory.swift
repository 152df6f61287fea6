import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The folder of run sockets and records: `$XDG_RUNTIME_DIR/uploader-tui/`, or `/tmp/uploader-tui-$UID/` without
/// a runtime folder. Mode 0700 and ours, or it is not used.
public struct RunDirectory: Sendable {
    public let path: String

    /// The folder for this user, from the environment.
    public init(environment: [String: String]) {
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            path = runtime + "/uploader-tui"
        } else {
            path = "/tmp/uploader-tui-\(getuid())"
        }
    }

    /// A folder at `path` (tests).
    public init(path: String) {
        self.path = path
    }

    /// Makes the folder (0700) when missing, and checks that it is ours and closed to others.
    /// - Throws: `RunServiceError` `.folderUnusable`, or `.otherUser` for a folder of another user.
    public func prepare() throws(RunServiceError) {
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw RunServiceError(.folderUnusable, detail: "\(path): \(String(cString: strerror(errno)))")
        }
        try check()
    }

    /// Checks, without creating it, that the folder is ours and closed to others.
    /// - Throws: `RunServiceError` `.noSuchRun` when it is missing, `.otherUser` or `.folderUnusable`.
    public func check() throws(RunServiceError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { throw RunServiceError(.noSuchRun) }
            if errno == EACCES { throw RunServiceError(.otherUser, detail: "\(path): permission denied") }
            throw RunServiceError(.folderUnusable, detail: "\(path): \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw RunServiceError(.folderUnusable, detail: "\(path) is not a folder")
        }
        guard info.st_uid == getuid() else {
            throw RunServiceError(.otherUser, detail: "\(path) is owned by uid \(info.st_uid)")
        }
        guard info.st_mode & 0o077 == 0 else {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw RunServiceError(
                .folderUnusable, detail: "\(path) is open to others (mode \(mode)); chmod 700 it")
        }
    }

    public func socketPath(_ id: String) -> String { "\(path)/\(id).sock" }
    public func recordPath(_ id: String) -> String { "\(path)/\(id).json" }
    /// The batch as the run ended, until a screen has shown it.
    public func lastPath(_ id: String) -> String { "\(path)/\(id).last.json" }
    /// The run process's standard error: what it says when it cannot start.
    public func logPath(_ id: String) -> String { "\(path)/\(id).log" }

    /// A fresh four-hex-digit ID no run here uses.
    public func newID() -> String {
        while true {
            let id = String(format: "%04x", UInt16.random(in: 0...UInt16.max))
            if !FileManager.default.fileExists(atPath: recordPath(id)),
                !FileManager.default.fileExists(atPath: socketPath(id))
            {
                return id
            }
        }
    }

    /// Whether `id` looks like a run ID (so a path is never built from anything else).
    public static func isValid(_ id: String) -> Bool {
        (1...16).contains(id.count) && id.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    /// The IDs of the runs with a record here.
    public func ids() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.compactMap { name in
            guard name.hasSuffix(".json") else { return nil }
            let id = String(name.dropLast(".json".count))
            return Self.isValid(id) ? id : nil
        }
    }

    /// Removes what a run left: socket, record, last snapshot and log.
    public func remove(_ id: String) {
        for path in [socketPath(id), recordPath(id), lastPath(id), logPath(id)] { unlink(path) }
    }
}
