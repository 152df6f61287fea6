import Foundation

/// The folders a killed run left (kill -9, a crash: no exit handler ran), found and removed by a later run.
///
/// A folder is removed only when it is provably ours and abandoned: a directory (not a link) named
/// `uploader-tui-XXXXXX`, owned by this user with mode 0700, whose `owner` file names a process (its pid and start
/// time, so a reused pid is not mistaken for it) that no longer runs. Only the files a run writes there are removed
/// (`owner` and `N.ext`); a folder holding anything else is left.
extension PreparedImageFolder {
    /// The name of the file that says which process a folder belongs to.
    static let ownerFile = "owner"

    /// Writes this process's pid and start time into `folder`'s owner file.
    static func recordOwner(in folder: String) {
        guard let started = startTime(of: getpid()) else { return }
        let text = "\(getpid()) \(started)\n"
        let descriptor = open(folder + "/" + ownerFile, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        _ = text.withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
    }

    /// Removes the abandoned folders of earlier runs in `parent`, leaving `current` (this process's).
    static func removeAbandoned(in parent: String, except current: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for name in names where name.hasPrefix("uploader-tui-") && name.count == "uploader-tui-XXXXXX".count {
            let folder = parent + "/" + name
            guard folder != current, isAbandoned(folder) else { continue }
            removeContents(of: folder)
        }
    }

    /// True when `folder` is one of ours whose process is gone.
    static func isAbandoned(_ folder: String) -> Bool {
        var status = stat()
        guard lstat(folder, &status) == 0, status.st_mode & S_IFMT == S_IFDIR, status.st_uid == getuid(),
            status.st_mode & 0o777 == 0o700,
            let text = try? String(contentsOfFile: folder + "/" + ownerFile, encoding: .utf8)
        else { return false }
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let pid = Int32(fields[0]), pid > 0, let started = UInt64(fields[1]) else {
            return false
        }
        // Alive, or a process we may not look at: not provably gone.
        if kill(pid, 0) == 0 || errno == EPERM { return startTime(of: pid).map { $0 != started } ?? false }
        return errno == ESRCH
    }

    /// Removes the files a run writes in `folder`, then the folder if nothing else is left.
    private static func removeContents(of folder: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        for name in names where name == ownerFile || isPreparedCopy(name) {
            unlink(folder + "/" + name)
        }
        rmdir(folder)
    }

    /// "12.jpg": a number, a dot, an extension.
    private static func isPreparedCopy(_ name: String) -> Bool {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[0].allSatisfy(\.isNumber)
            && ImageOutputFormat.allCases.contains { $0.fileExtension == parts[1] }
    }

    /// The start time of process `pid` (clock ticks since boot, field 22 of `/proc/PID/stat`), nil when it is gone.
    static func startTime(of pid: Int32) -> UInt64? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return nil }
        // After the command's name (which may hold spaces and parentheses): the state is field 3.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        return fields.count > 19 ? UInt64(fields[19]) : nil
    }
}
