import Foundation
import UploadDomain

/// The locks that let runs share one journal: each run holds the journal shared and its destination exclusively, so
/// runs to different destinations go on side by side while a second run to one destination is refused (two runs
/// would send the same files twice); `delete`, which forgets records across destinations, holds it exclusively.
///
/// The journal is held through `flock` on a sibling `PATH.lock`, taken before the database exists; the lock file is
/// never removed: removing it would let a third process lock a fresh file while a second still holds the old one.
/// Once the database exists it is locked the same way (`lockDatabase`), as a hard link to it has a lock file of its
/// own, and a destination is an open-file-description lock on one byte of both files, far above SQLite's own
/// (`claim(destination:)`). The database's descriptor stays open until SQLite has closed the database: closing any
/// descriptor of a file drops the process's POSIX locks on it, SQLite's included.
struct JournalLock: ~Copyable {
    private let descriptor: Int32
    private var databaseDescriptor: Int32 = -1
    private let exclusive: Bool
    /// The byte `claim(destination:)` locked.
    private var claimed: Int?

    /// Creates `PATH.lock` (0600) when needed and takes the lock; a shared lock waits up to 2 s for a `delete`.
    ///
    /// - Parameter exclusive: No run may share the journal meanwhile (`delete`).
    /// - Throws: `.locked` when another holder keeps it, `.notWritable` when it cannot be created.
    init(journalPath path: String, exclusive: Bool) throws(JournalError) {
        let lockPath = path + ".lock"
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw .system(.notWritable, path: path, doing: "cannot create \(lockPath)", errno: errno)
        }
        let locked = try Self.locked(
            fd, exclusive: exclusive, journal: path, naming: lockPath, held: Self.held(exclusive))
        descriptor = locked
        self.exclusive = exclusive
    }

    /// Locks the database file itself, by its inode, whatever name reached it, as the lock file is locked.
    /// - Throws: `.locked` when another holder keeps it through another name (a hard link).
    mutating func lockDatabase(_ path: String) throws(JournalError) {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw .system(.notWritable, path: path, doing: "cannot open it", errno: errno) }
        databaseDescriptor = try Self.locked(
            fd, exclusive: exclusive, journal: path, naming: "it", held: Self.held(exclusive) + " (another name)")
    }

    /// Holds `destination` for this run, without waiting; after `lockDatabase`. The byte is locked in the lock file,
    /// which is never removed (a journal replaced meanwhile is no way around it), and in the database file, which a
    /// hard link reaches. Where the file system has no such locks, the run holds the whole journal, as it used to.
    /// - Throws: `.locked` when another run uploads to it.
    mutating func claim(destination: String, journal path: String) throws(JournalError) {
        let held = JournalError(.locked, path: path, reason: "in use by another running uploader-tui to \(destination)")
        let offset = Self.offset(of: Self.key(of: destination))
        for fd in [descriptor, databaseDescriptor] {
            var range = Self.byte(at: offset, type: F_WRLCK)
            guard fcntl(fd, Self.setLock, &range) != 0 else { continue }
            let number = errno
            if number == EAGAIN || number == EACCES { throw held }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { throw held }
            return
        }
        claimed = offset
    }

    /// What two runs must not share: for S3 the bucket at its endpoint, as prefixes may overlap (`s3://b/` with
    /// `pics`, `s3://b/pics/`), and an upload begun by one run must not be continued or aborted by the other; for
    /// the other destinations the URL as shown.
    static func key(of destination: String) -> String {
        guard destination.lowercased().hasPrefix("s3://") else { return destination }
        let rest = destination.dropFirst(5)
        let bucket = rest.prefix { $0 != "/" && $0 != " " }
        let endpoint = destination.range(of: " at ").map { String(destination[$0.upperBound...]) } ?? ""
        return "s3://" + bucket.lowercased() + " at " + endpoint
    }

    /// Runs `body` while no other holder runs its own: the schema's check and migration, which two runs opening a new
    /// journal at once would each apply. After `lockDatabase`. Waits up to 10 s for another's.
    func serialized<T>(journal path: String, _ body: () throws -> T) throws -> T {
        var range = Self.byte(at: Self.setUpByte, type: F_WRLCK)
        var attempts = 1000
        while fcntl(databaseDescriptor, Self.setLock, &range) != 0 {
            // Without such locks, opening goes on as before them.
            guard errno == EAGAIN || errno == EACCES else { return try body() }
            attempts -= 1
            guard attempts > 0 else {
                throw JournalError(.locked, path: path, reason: "in use by another uploader-tui that is opening it")
            }
            usleep(10_000)
        }
        defer {
            range.l_type = Int16(F_UNLCK)
            _ = fcntl(databaseDescriptor, Self.setLock, &range)
        }
        return try body()
    }

    /// Whether no other process shares the journal now; the shared lock is given up in asking.
    func isSoleHolder() -> Bool {
        flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    /// `fd` locked without waiting (a shared lock retries for 2 s); closed when the lock is not had.
    private static func locked(
        _ fd: Int32, exclusive: Bool, journal path: String, naming name: String, held: String
    ) throws(JournalError) -> Int32 {
        // A delete holds the journal exclusively for the moment it forgets its records.
        var attempts = exclusive ? 1 : 200
        while flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0 {
            let number = errno
            attempts -= 1
            if number == EWOULDBLOCK, attempts > 0 {
                usleep(10_000)
                continue
            }
            close(fd)
            if number == EWOULDBLOCK { throw JournalError(.locked, path: path, reason: held) }
            throw .system(.notWritable, path: path, doing: "cannot lock \(name)", errno: number)
        }
        return fd
    }

    private static func held(_ exclusive: Bool) -> String {
        exclusive ? "in use by another running uploader-tui" : "in use by another uploader-tui (a delete)"
    }

    /// Whether a run uploads to `destination` through the journal at `path` now (for `history`, which only reads).
    static func isHeld(journalPath path: String, destination: String) -> Bool {
        let fd = open(path + ".lock", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var range = Self.byte(at: Self.offset(of: key(of: destination)), type: F_WRLCK)
        return fcntl(fd, getLock, &range) == 0 && range.l_type != Int16(F_UNLCK)
    }

    /// Linux's open-file-description locks (`F_OFD_GETLK`, `F_OFD_SETLK`), which Glibc's module
    /// leaves out: unlike POSIX record locks they are not dropped when SQLite closes another descriptor of the file,
    /// and two descriptors of one process conflict, as two runs' do.
    private static let getLock: Int32 = 36
    private static let setLock: Int32 = 37
    /// The bytes locked are at 2 TiB and up, far from those near 1 GiB SQLite locks.
    private static let setUpByte = 1 << 41

    /// The byte that stands for `destination`: FNV-1a of its UTF-8, so every process finds the same one.
    private static func offset(of destination: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in destination.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return setUpByte + 1 + Int(hash & ((1 << 40) - 1))
    }

    private static func byte(at offset: Int, type: Int32) -> flock {
        var range = flock()
        range.l_type = Int16(type)
        range.l_whence = Int16(SEEK_SET)
        range.l_start = offset
        range.l_len = 1
        return range
    }

    /// Releases the locks when the owner lets go of them.
    deinit {
        // Unlocked before closed: a child forked meanwhile (a test's, a --token-command's) shares the descriptions
        // until it execs, and a close alone would leave the lock held for that while.
        if databaseDescriptor >= 0 {
            if let claimed {
                for fd in [descriptor, databaseDescriptor] {
                    var range = Self.byte(at: claimed, type: F_UNLCK)
                    _ = fcntl(fd, Self.setLock, &range)
                }
            }
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
