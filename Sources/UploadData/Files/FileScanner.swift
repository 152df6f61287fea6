import Foundation
import Synchronization
import UploadDomain

/// Turns path arguments into upload items: files as they are, folders walked.
public struct FileScanner: Sendable {
    /// What scanning found: the items, and notes about entries that are not uploaded (never silently).
    public struct Result: Sendable {
        public var items: [UploadItem]
        public var notes: [String]
        /// Every entry of the folders that is not an item, with its reason, in the order of the scan.
        public var leftOut: [LeftOutEntry] = []
    }

    /// A path argument that cannot be used at all (a usage error).
    public struct ScanError: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(Sanitizer.displayName(path)): \(reason)" }
    }

    public var recursive: Bool
    public var includeHidden: Bool
    /// Follow symbolic links met in folders (`-L`); otherwise each is an item skipped with its reason, so a link to
    /// `~/.ssh/id_ed25519` in a photo folder is never sent (issue 15).
    public var followSymlinks: Bool
    /// Which files found in folders are kept, and the batch's order.
    public var selection: FileSelection
    /// Lists each entry left out in `Result.leftOut` (for `--json`); otherwise they are only counted for the notes,
    /// which costs a folder of hidden files no string and no sort.
    public var listsLeftOut: Bool

    /// Creates a scanner.
    public init(
        recursive: Bool = false, includeHidden: Bool = false, followSymlinks: Bool = false,
        selection: FileSelection = FileSelection(), listsLeftOut: Bool = true
    ) {
        self.recursive = recursive
        self.includeHidden = includeHidden
        self.followSymlinks = followSymlinks
        self.selection = selection
        self.listsLeftOut = listsLeftOut
    }

    /// Scans the arguments in order; items keep that order (folders sorted by name).
    /// - Throws: `ScanError` when an argument does not exist or is not a file or folder.
    public func scan(_ arguments: [String]) throws(ScanError) -> Result {
        var found: [Found] = []
        var notes: [String] = []
        var links = Links()
        var left = LeftOut(listing: listsLeftOut)
        // A folder named twice (`pics pics/`) is walked once: its files would be dropped as repeats, its entries left
        // out counted twice.
        var folderArguments: Set<FolderID> = []
        for argument in arguments {
            // `stat` would take the current folder for it: an unset variable ("$DIR") must not send the folder.
            guard !argument.isEmpty else { throw ScanError(path: "''", reason: "an empty path names no file") }
            let absolute = Self.absolute(argument)
            var info = stat()
            guard stat(absolute, &info) == 0 else {
                // The arguments reach here as text: bytes that are not UTF-8 were replaced, so the path names nothing.
                let reason =
                    argument.unicodeScalars.contains("\u{FFFD}")
                    ? "not found: its name is not valid UTF-8 (rename it, or name the folder that holds it)"
                    : String(cString: strerror(errno))
                throw ScanError(path: argument, reason: reason)
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                found.append(
                    Self.probe(
                        absolute, in: AT_FDCWD, path: absolute, relative: (absolute as NSString).lastPathComponent))
            case S_IFDIR:
                guard folderArguments.insert(FolderID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted
                else { continue }
                var visited: Set<FolderID> = []
                links.roots.append(Self.resolved(absolute))
                var inFolder: [Found] = []
                do {
                    try walk(
                        absolute, relative: "", visited: &visited, into: &inFolder, notes: &notes, links: &links,
                        left: &left)
                } catch {
                    throw ScanError(path: argument, reason: error.reason)
                }
                found += select(inFolder, leftOut: &left)
            default:
                throw ScanError(path: argument, reason: "not a regular file or folder")
            }
        }
        // By bytes: String's == holds two spellings of one name equal (é as one scalar, or e and a combining
        // accent), which are two files on disk.
        var seen: Set<[UInt8]> = []
        var items: [UploadItem] = []
        for entry in found where seen.insert(entry.rawPath ?? Array(entry.path.utf8)).inserted {
            items.append(entry.item(id: items.count))
        }
        if selection.order != nil { items = UploadItem.renumbered(selection.ordered(items)) }
        notes += left.notes
        let outside = links.followed.filter { target in
            !links.roots.contains { target == $0 || target.hasPrefix($0 == "/" ? "/" : $0 + "/") }
        }
        if !outside.isEmpty {
            let count = outside.count == 1 ? "1 followed link points" : "\(outside.count) followed links point"
            notes.append("\(count) outside the folders given (-L)")
        }
        return Result(items: items, notes: notes, leftOut: left.entries)
    }

    /// A file as scanned: one `open`, `fstat`, `read` and `close`, each relative to its open folder, so the kernel
    /// looks one name up instead of the whole path: the scan is on the way to the first request.
    private struct Found {
        var path: String
        var relative: String
        var size: Int64 = 0
        var modified = 0.0
        var header: [UInt8] = []
        var failure: String?
        var skipReason: String?
        var identity: FileIdentity?
        var isFolder = false
        /// A name that is not UTF-8: its path's bytes (after a 0, which no path holds), which tell it apart from a
        /// file whose name is its escaped spelling.
        var rawPath: [UInt8]?

        func item(id: Int) -> UploadItem {
            UploadItem(
                id: id, path: path, relativePath: relative, size: size, modified: modified,
                contentType: MediaType.detect(header: header, name: relative), unreadableReason: failure,
                skipReason: skipReason, sniffedType: MediaType.sniff(header), identity: identity, isFolder: isFolder)
        }
    }

    /// The entries of a folder argument that `--max-age`/`--min-age` keep (they apply to files that could be read).
    private func select(_ found: [Found], leftOut: inout LeftOut) -> [Found] {
        let now = Date().timeIntervalSince1970
        return found.filter { entry in
            if entry.failure == nil, entry.skipReason == nil, selection.filtersByAge,
                !selection.admits(modified: entry.modified, now: now)
            {
                leftOut.byAge += 1
                leftOut.add(entry.relative, LeftOut.byAgeReason)
                return false
            }
            return true
        }
    }

    /// Entries the scan left out: each with its reason, and counted for one note a kind.
    private struct LeftOut {
        var byName = 0
        var byAge = 0
        var folders = 0
        var hidden = 0
        /// Whether `entries` lists them, or they are only counted.
        let listing: Bool
        var entries: [LeftOutEntry] = []

        init(listing: Bool) {
            self.listing = listing
        }

        mutating func add(_ path: @autoclosure () -> String, _ reason: String) {
            if listing { entries.append(LeftOutEntry(path: path(), reason: reason)) }
        }

        // One string each, shared by every entry.
        static let hiddenReason = "hidden (--hidden sends it)"
        static let byNameReason = "left out by --include/--exclude"
        static let byAgeReason = "left out by --max-age/--min-age"
        static let prunedReason = "left out by --exclude"
        static let notRecursiveReason = "folder not uploaded (use --recursive)"
        static let loopReason = "folder loop through a link, not walked again"

        var notes: [String] {
            func files(_ n: Int) -> String { n == 1 ? "1 file" : "\(n) files" }
            let entries = hidden == 1 ? "1 hidden (dot) entry" : "\(hidden) hidden (dot) entries"
            return (hidden > 0 ? ["\(entries) left out (--hidden sends them)"] : [])
                + (byName > 0 ? ["\(files(byName)) left out by --include/--exclude"] : [])
                + (byAge > 0 ? ["\(files(byAge)) left out by --max-age/--min-age"] : [])
                + (folders > 0 ? ["\(folders == 1 ? "1 folder" : "\(folders) folders") left out by --exclude"] : [])
        }
    }

    /// The folders given and the targets of the links followed in them, to say how many lead outside.
    private struct Links {
        var roots: [String] = []
        var followed: [String] = []
    }

    /// A folder's identity, to walk each folder once however many links lead to it.
    private struct FolderID: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Lists `folder` (`relative` to the folder argument, "" for the argument itself) into `found`.
    /// - Throws: `ScanError` when the folder argument itself cannot be listed; a folder inside it that cannot be
    ///   listed is a failing item instead.
    private func walk(
        _ folder: String, relative: String, visited: inout Set<FolderID>, into found: inout [Found],
        notes: inout [String], links: inout Links, left: inout LeftOut
    ) throws(ScanError) {
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        var info = stat()
        guard descriptor >= 0, fstat(descriptor, &info) == 0, let stream = fdopendir(descriptor) else {
            let reason = String(cString: strerror(errno))
            if descriptor >= 0 { close(descriptor) }
            // The folder named is unusable, as a missing one is. One inside it becomes a failing item named as a
            // folder, so its files are not silently left out and the run does not end well.
            guard !relative.isEmpty else { throw ScanError(path: folder, reason: "cannot list folder: \(reason)") }
            var unlistable = Found(path: folder, relative: relative + "/", failure: reason)
            unlistable.isFolder = true
            found.append(unlistable)
            return
        }
        defer { closedir(stream) }
        guard visited.insert(FolderID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))).inserted else {
            notes.append("\(Sanitizer.displayName(folder)): \(LeftOut.loopReason)")
            left.add(relative + "/", LeftOut.loopReason)
            return
        }
        var entries: [(name: String, type: Int32, utf8: Bool)] = []
        // The raw bytes of names that are not UTF-8, by the escaped name that stands for them.
        var rawNames: [String: [CChar]] = [:]
        while let entry = readdir(stream) {
            let (name, utf8) = withUnsafeBytes(of: entry.pointee.d_name) {
                let bytes = $0.bindMemory(to: CChar.self).baseAddress!
                return String(validatingCString: bytes).map { ($0, true) } ?? (Self.escapedName(bytes), false)
            }
            if !utf8 {
                rawNames[name] = withUnsafeBytes(of: entry.pointee.d_name) {
                    let bytes = $0.bindMemory(to: CChar.self).baseAddress!
                    return Array(UnsafeBufferPointer(start: bytes, count: strlen(bytes) + 1))
                }
            }
            if name == "." || name == ".." { continue }
            if name.hasPrefix("."), !includeHidden, !left.listing {
                left.hidden += 1
                continue
            }
            entries.append((name, Int32(entry.pointee.d_type), utf8))
        }
        // Hidden entries, when listed, are sorted with the rest, so the entries left out come in name order too.
        entries.sort { $0.name < $1.name }
        // Regular files are probed after the listing, together: in parallel when there are many.
        var slots: [Slot] = []
        var files: [FileToProbe] = []
        for (name, type, utf8) in entries {
            let path = folder + "/" + name
            let rel = relative.isEmpty ? name : relative + "/" + name
            if name.hasPrefix("."), !includeHidden {
                // Reached only when listing: otherwise hidden entries were counted as the folder was read.
                left.hidden += 1
                let isFolder =
                    type == DT_UNKNOWN
                    ? fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 && info.st_mode & S_IFMT == S_IFDIR
                    : type == DT_DIR
                left.add(isFolder ? rel + "/" : rel, LeftOut.hiddenReason)
                continue
            }
            // Paths are Strings: the repaired name opens no file, so say why instead of "No such file".
            guard utf8 else {
                let raw = rawNames[name] ?? []
                let statted = fstatat(descriptor, raw, &info, AT_SYMLINK_NOFOLLOW) == 0
                let isFolder = statted && info.st_mode & S_IFMT == S_IFDIR
                var found = Found(
                    path: path, relative: isFolder ? rel + "/" : rel,
                    failure: "name is not valid UTF-8; rename it to send " + (isFolder ? "what it holds" : "it"))
                found.isFolder = isFolder
                found.rawPath =
                    [0] + Array(folder.utf8) + [UInt8(ascii: "/")] + raw.dropLast().map { UInt8(bitPattern: $0) }
                if statted, !isFolder {
                    found.size = Int64(info.st_size)
                    found.modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
                }
                slots.append(.found(found))
                continue
            }
            var kind = Self.kind(ofEntryType: type)
            if kind == nil {
                guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else {
                    slots.append(.found(Self.failed(path, relative: rel, String(cString: strerror(errno)))))
                    continue
                }
                kind = info.st_mode & S_IFMT
            }
            // Before the file is opened: --exclude 'node_modules/' or --include '*.jpg' should cost no reads.
            if kind != S_IFDIR, !selection.admits(rel) {
                left.byName += 1
                left.add(rel, LeftOut.byNameReason)
                continue
            }
            if kind == S_IFLNK {
                guard followSymlinks else {
                    slots.append(.found(Self.unfollowed(name, in: descriptor, path: path, relative: rel)))
                    continue
                }
                guard fstatat(descriptor, name, &info, 0) == 0 else {
                    slots.append(.found(Self.failed(path, relative: rel, String(cString: strerror(errno)))))
                    continue
                }
                kind = info.st_mode & S_IFMT
                links.followed.append(Self.resolved(path))
            }
            switch kind {
            case S_IFREG:
                slots.append(.probe(files.count))
                files.append(FileToProbe(name: name, path: path, relative: rel))
            case S_IFDIR:
                if selection.prunes(folder: rel) {
                    left.folders += 1
                    left.add(rel + "/", LeftOut.prunedReason)
                } else if recursive {
                    slots.append(.folder(path, relative: rel))
                } else {
                    notes.append("\(Sanitizer.displayName(rel))/: \(LeftOut.notRecursiveReason)")
                    left.add(rel + "/", LeftOut.notRecursiveReason)
                }
            default:
                notes.append("\(Sanitizer.displayName(rel)): not a regular file, not uploaded")
                left.add(rel, "not a regular file (\(Self.kindName(kind ?? 0)))")
            }
        }
        let probed = Self.probe(files, in: descriptor)
        for slot in slots {
            switch slot {
            case .found(let entry):
                found.append(entry)
            case .probe(let index):
                found.append(probed[index])
            case .folder(let path, let rel):
                try walk(
                    path, relative: rel, visited: &visited, into: &found, notes: &notes, links: &links, left: &left)
            }
        }
    }

    /// A folder entry in name order: found already, a file to probe, or a folder to walk.
    private enum Slot {
        case found(Found)
        case probe(Int)
        case folder(String, relative: String)
    }

    private struct FileToProbe: Sendable {
        var name: String
        var path: String
        var relative: String
    }

    /// From this many files in a folder they are probed on several threads: a file costs four system calls, about
    /// 4 µs, and 10,000 of them were 40 ms on the way to the first request. Fewer are probed on the calling thread:
    /// new threads cost more than they save there, as each waits for the dynamic loader's lock while the start-up
    /// thread loads libcurl (`pthread_create` sets up thread-local storage under it), and on a VM for an idle
    /// vCPU to wake.
    static let parallelProbes = 1_024

    /// The files of the folder open as `folder`, probed in order; by blocks on up to four threads when there are many.
    private static func probe(_ files: [FileToProbe], in folder: Int32) -> [Found] {
        let workers = min(4, ProcessInfo.processInfo.activeProcessorCount)
        guard files.count >= parallelProbes, workers > 1 else {
            return files.map { probe($0.name, in: folder, path: $0.path, relative: $0.relative) }
        }
        let block = 64
        let next = Atomic<Int>(0)
        return [Found](unsafeUninitializedCapacity: files.count) { buffer, count in
            nonisolated(unsafe) let results = buffer
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                while true {
                    let start = next.add(block, ordering: .relaxed).oldValue
                    guard start < files.count else { return }
                    for index in start..<min(start + block, files.count) {
                        let file = files[index]
                        (results.baseAddress! + index).initialize(
                            to: probe(file.name, in: folder, path: file.path, relative: file.relative))
                    }
                }
            }
            count = files.count
        }
    }

    /// What a special file is, in words.
    private static func kindName(_ kind: mode_t) -> String {
        switch kind {
        case S_IFIFO: "named pipe"
        case S_IFSOCK: "socket"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        default: "unknown type"
        }
    }

    /// The file type `readdir` gave (as `st_mode` bits, like `DTTOIF`), or nil when only `lstat` can tell.
    private static func kind(ofEntryType type: Int32) -> mode_t? {
        type == DT_UNKNOWN ? nil : mode_t(type) << 12
    }

    /// A link that is not followed: an item skipped with the reason, naming where the link points.
    private static func unfollowed(_ name: String, in folder: Int32, path: String, relative: String) -> Found {
        var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlinkat(folder, name, &target, target.count - 1)
        let destination =
            count >= 0 ? String(decoding: target[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        var found = Found(path: path, relative: relative)
        found.skipReason = "symbolic link to \(destination), not followed (-L follows links)"
        return found
    }

    /// `path` with every link resolved, or as it is when that fails.
    private static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }

    /// Size, modification time and first bytes of the regular file `name` in the folder open as `folder`.
    private static func probe(_ name: String, in folder: Int32, path: String, relative: String) -> Found {
        // O_NONBLOCK: should the file have become a FIFO since it was listed, opening it must not wait for a writer.
        let descriptor = name.withCString { openat(folder, $0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard descriptor >= 0 else { return failed(path, relative: relative, String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            return failed(path, relative: relative, String(cString: strerror(errno)))
        }
        var found = Found(path: path, relative: relative)
        found.size = Int64(info.st_size)
        found.modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        found.identity = FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        var header = [UInt8](repeating: 0, count: MediaType.headerLength)
        let count = read(descriptor, &header, header.count)
        if count < 0 {
            found.failure = String(cString: strerror(errno))
        } else {
            header.removeLast(header.count - count)
            found.header = header
        }
        return found
    }

    /// A name that is not UTF-8, its stray bytes written `\xF0`: each such name stays one entry of its own, and the
    /// text says which bytes to rename.
    static func escapedName(_ bytes: UnsafePointer<CChar>) -> String {
        let raw = UnsafeBufferPointer(
            start: UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: strlen(bytes))
        var name = ""
        var index = 0
        while index < raw.count {
            let lead = raw[index]
            let length =
                lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 0
            if length > 0, index + length <= raw.count,
                let scalar = String(validating: raw[index..<(index + length)], as: UTF8.self)
            {
                name += scalar
                index += length
            } else {
                name += "\\x" + String(lead, radix: 16, uppercase: true)
                index += 1
            }
        }
        return name
    }

    /// An entry that fails without a request; size and time are still given when `stat` can read them.
    private static func failed(_ path: String, relative: String, _ reason: String) -> Found {
        var found = Found(path: path, relative: relative, failure: reason)
        var info = stat()
        if stat(path, &info) == 0 {
            found.size = Int64(info.st_size)
            found.modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        }
        return found
    }

    /// `path` made absolute against the working directory, a leading `~` expanded from `$HOME` (`HomePath`) and
    /// `.`/`..` resolved.
    public static func absolute(
        _ path: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        // Not `expandingTildeInPath`, which reads the passwd entry's home, not `$HOME`.
        let expanded = HomePath.expanding(path, home: HomePath.home(environment, passwd: NSHomeDirectory))
        let full = expanded.hasPrefix("/") ? expanded : FileManager.default.currentDirectoryPath + "/" + expanded
        return (full as NSString).standardizingPath
    }
}
