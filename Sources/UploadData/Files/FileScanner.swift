import Foundation
import UploadDomain

/// Turns path arguments into upload items: files as they are, folders walked.
public struct FileScanner: Sendable {
    /// What scanning found: the items, and notes about entries that are not uploaded (never silently).
    public struct Result: Sendable {
        public var items: [UploadItem]
        public var notes: [String]
    }

    /// A path argument that cannot be used at all (a usage error).
    public struct ScanError: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "\(Sanitizer.displayName(path)): \(reason)" }
    }

    public var recursive: Bool
    public var includeHidden: Bool

    /// Creates a scanner.
    public init(recursive: Bool = false, includeHidden: Bool = false) {
        self.recursive = recursive
        self.includeHidden = includeHidden
    }

    /// Scans the arguments in order; items keep that order (folders sorted by name).
    /// - Throws: `ScanError` when an argument does not exist or is not a file or folder.
    public func scan(_ arguments: [String]) throws(ScanError) -> Result {
        var found: [(path: String, relative: String, failure: String?)] = []
        var notes: [String] = []
        for argument in arguments {
            let absolute = Self.absolute(argument)
            var info = stat()
            guard stat(absolute, &info) == 0 else {
                throw ScanError(path: argument, reason: String(cString: strerror(errno)))
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                found.append((absolute, (absolute as NSString).lastPathComponent, nil))
            case S_IFDIR:
                var visited: Set<[UInt64]> = []
                walk(absolute, relative: "", visited: &visited, into: &found, notes: &notes)
            default:
                throw ScanError(path: argument, reason: "not a regular file or folder")
            }
        }
        var seen: Set<String> = []
        var items: [UploadItem] = []
        for entry in found where seen.insert(entry.path).inserted {
            items.append(Self.item(id: items.count, path: entry.path, relative: entry.relative, failure: entry.failure))
        }
        return Result(items: items, notes: notes)
    }

    private func walk(
        _ folder: String, relative: String, visited: inout Set<[UInt64]>,
        into found: inout [(path: String, relative: String, failure: String?)], notes: inout [String]
    ) {
        var info = stat()
        if stat(folder, &info) == 0, !visited.insert([UInt64(info.st_dev), UInt64(info.st_ino)]).inserted {
            notes.append("\(Sanitizer.displayName(folder)): folder loop through a link, not walked again")
            return
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        } catch {
            // An unlistable folder becomes a failing item, so it is reported rather than skipped.
            found.append((folder, relative.isEmpty ? "." : relative, "cannot list folder: \(Self.reason(error))"))
            return
        }
        for name in names {
            if name.hasPrefix("."), !includeHidden { continue }
            let path = folder + "/" + name
            let rel = relative.isEmpty ? name : relative + "/" + name
            guard stat(path, &info) == 0 else {
                found.append((path, rel, String(cString: strerror(errno))))
                continue
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                found.append((path, rel, nil))
            case S_IFDIR:
                if recursive {
                    walk(path, relative: rel, visited: &visited, into: &found, notes: &notes)
                } else {
                    notes.append("\(Sanitizer.displayName(rel))/: folder not uploaded (use --recursive)")
                }
            default:
                notes.append("\(Sanitizer.displayName(rel)): not a regular file, not uploaded")
            }
        }
    }

    private static func item(id: Int, path: String, relative: String, failure: String?) -> UploadItem {
        var info = stat()
        var size: Int64 = 0
        var modified = 0.0
        if stat(path, &info) == 0 {
            size = Int64(info.st_size)
            modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        }
        var header = [UInt8](repeating: 0, count: MediaType.headerLength)
        var problem = failure
        if problem == nil {
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            if fd < 0 {
                problem = String(cString: strerror(errno))
            } else {
                let count = read(fd, &header, header.count)
                if count < 0 { problem = String(cString: strerror(errno)) }
                header = Array(header.prefix(max(0, count)))
                close(fd)
            }
        }
        return UploadItem(
            id: id, path: path, relativePath: relative, size: size, modified: modified,
            contentType: MediaType.detect(header: header, name: relative), unreadableReason: problem)
    }

    /// `path` made absolute against the working directory, `~` expanded and `.`/`..` resolved.
    public static func absolute(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        let full = expanded.hasPrefix("/") ? expanded : FileManager.default.currentDirectoryPath + "/" + expanded
        return (full as NSString).standardizingPath
    }

    private static func reason(_ error: any Error) -> String {
        if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError {
            return String(cString: strerror(Int32(posix.code)))
        }
        return (error as NSError).localizedDescription
    }
}
