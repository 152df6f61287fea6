import Foundation
import UploadDomain

/// An exclusive `flock` on `PATH.lock`, held for the life of a journal, so two runs never write one journal.
///
/// A sibling file, taken before the database exists; the lock file is never removed: removing it would let a third
/// process lock a fresh file while a second still holds the old one. Once the database exists it is locked too
/// (`lockDatabase`), as a hard link to it has a lock file of its own. That descriptor stays open until SQLite has
/// closed the database: closing any descriptor of a file drops the process's POSIX locks on it, SQLite's included.
struct JournalLock: ~Copyable {
    private let descriptor: Int32
    private var databaseDescriptor: Int32 = -1

    /// Creates `PATH.lock` (0600) when needed and takes the lock without waiting.
    ///
    /// - Throws: `.locked` when another open file description holds it, `.notWritable` when it cannot be created.
    init(journalPath path: String) throws(JournalError) {
        let lockPath = path + ".lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .system(.notWritable, path: path, doing: "cannot create \(lockPath)", errno: errno)
        }
        descriptor = try Self.locked(
            fd, journal: path, naming: lockPath, held: "in use by another running uploader-tui")
    }

    /// Locks the database file itself, by its inode, whatever name reached it.
    /// - Throws: `.locked` when another run holds it through another name (a hard link).
    mutating func lockDatabase(_ path: String) throws(JournalError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .system(.notWritable, path: path, doing: "cannot open it", errno: errno) }
        databaseDescriptor = try Self.locked(
            fd, journal: path, naming: "it", held: "in use by another running uploader-tui (another name)")
    }

    /// `fd` locked exclusively without waiting; closed when the lock is not had.
    private static func locked(
        _ fd: Int32, journal path: String, naming name: String, held: String
    ) throws(JournalError) -> Int32 {
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let number = errno
            close(fd)
            if number == EWOULDBLOCK { throw JournalError(.locked, path: path, reason: held) }
            throw .system(.notWritable, path: path, doing: "cannot lock \(name)", errno: number)
        }
        return fd
    }

    /// Whether a run holds the journal at `path` now (for `history`, which only reads). The test takes the lock
    /// shared for an instant, which a run starting in that instant would find taken.
    static func isHeld(journalPath path: String) -> Bool {
        let fd = open(path + ".lock", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(fd, LOCK_UN)
        return false
    }

    /// Releases the lock when the owner lets go of it.
    deinit {
        // Unlocked before closed: a child forked meanwhile (a test's, a --token-command's) shares the descriptions
        // until it execs, and a close alone would leave the lock held for that while.
        if databaseDescriptor >= 0 {
            flock(databaseDescriptor, LOCK_UN)
            close(databaseDescriptor)
        }
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

/// File-system chores around the journal file.
enum JournalFiles {
    /// `path` with its links resolved, so a link to a journal locks and creates the journal itself (its lock file
    /// sits beside it, not beside the link, and it is created 0600); a link to a missing file resolves to where the
    /// file would be. A path that names no link is returned whole, its folders resolved.
    static func resolved(_ path: String) -> String {
        if let real = realpath(path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        var target = path
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { readlink(path, $0.baseAddress!, $0.count - 1) }
        if count > 0 {
            let link = String(decoding: buffer[..<count], as: UTF8.self)
            target = link.hasPrefix("/") ? link : (path as NSString).deletingLastPathComponent + "/" + link
        }
        let folder = (target as NSString).deletingLastPathComponent
        guard let real = realpath(folder.isEmpty ? "." : folder, nil) else { return target }
        defer { free(real) }
        return String(cString: real) + "/" + (target as NSString).lastPathComponent
    }

    /// Refuses a journal path that names something other than a file (`/dev/null`, a folder, a FIFO): SQLite would
    /// put its lock and journal files beside it, or wait on it.
    static func checkIsFile(_ path: String) throws(JournalError) {
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw JournalError(.notADatabase, path: path, reason: "not a regular file")
        }
    }

    /// Creates the folders above `path` that are missing, each 0700 (the journal names every file uploaded).
    static func makeParentFolders(of path: String) throws(JournalError) {
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty else { return }
        var prefix = parent.hasPrefix("/") ? "" : "."
        var info = stat()
        for component in parent.split(separator: "/") {
            prefix += "/" + component
            // Only missing folders are made: mkdir on an existing one may say EACCES or EROFS instead of EEXIST.
            if stat(prefix, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw JournalError(.notWritable, path: path, reason: "\(prefix) is not a folder")
                }
                continue
            }
            if mkdir(prefix, 0o700) != 0, errno != EEXIST {
                throw .system(.notWritable, path: path, doing: "cannot create folder \(prefix)", errno: errno)
            }
        }
    }

    /// Creates an empty journal file (0600) when there is none, so SQLite's files inherit owner-only access.
    ///
    /// An existing file is left alone, whatever it holds.
    /// - Returns: true when the file did not exist and was created empty.
    static func createIfMissing(_ path: String) throws(JournalError) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
            return true
        } else if errno != EEXIST {
            throw .system(.notWritable, path: path, doing: "cannot create it", errno: errno)
        }
        return false
    }

    /// The device and inode `path` names, or nil when it names nothing.
    static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Modification time in seconds, computed exactly as `FileScanner` does, so equal times compare equal.
    static func modified(_ info: stat) -> Double {
        Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }
}
