import Foundation
import UploadData
import UploadDomain

/// `--results FILE`: every file's outcome in input order, written whole or not at all.
enum ResultsFile {
    /// Where the results go: a regular file (or a new one) is replaced whole by a rename beside it, through any link
    /// to it, so the link stays; a pipe or a terminal (`--results >(jq .)`, `/dev/stdout`) is written into.
    enum Target: Equatable {
        case file(String)
        case stream(String)

        var path: String {
            switch self {
            case .file(let path), .stream(let path): path
            }
        }
    }

    /// Checked before anything is sent, so a path that cannot take the results costs no upload.
    static func target(for argument: String, environment: [String: String]) throws(UsageError) -> Target {
        func refused(_ reason: String) -> UsageError {
            UsageError(description: "--results \(Sanitizer.displayName(argument)): \(reason)")
        }
        let absolute = FileScanner.absolute(argument, environment: environment)
        var info = stat()
        if stat(absolute, &info) == 0 {
            // `/dev/stdout`, `/dev/fd/3`, `/proc/self/fd/1`: an open stream, whatever it leads to, is added to (as
            // given: the absolute path has its links resolved).
            if argument.hasPrefix("/dev/") || argument.hasPrefix("/proc/") {
                guard access(argument, W_OK) == 0 else { throw refused(String(cString: strerror(errno))) }
                return .stream(argument)
            }
            switch info.st_mode & S_IFMT {
            case S_IFREG:
                guard let resolved = realpath(absolute, nil) else { throw refused(String(cString: strerror(errno))) }
                defer { free(resolved) }
                let path = String(cString: resolved)
                guard access(path, W_OK) == 0 else { throw refused(String(cString: strerror(errno))) }
                // It is replaced by a rename of a file written beside it.
                let folder = (path as NSString).deletingLastPathComponent
                guard access(folder, W_OK) == 0 else {
                    throw refused("cannot write in \(Sanitizer.displayName(folder))")
                }
                return .file(path)
            case S_IFIFO, S_IFCHR:
                guard access(absolute, W_OK) == 0 else { throw refused(String(cString: strerror(errno))) }
                return .stream(absolute)
            case S_IFDIR:
                throw refused("is a folder")
            default:
                throw refused("not a regular file, pipe or terminal")
            }
        }
        var link = stat()
        if lstat(absolute, &link) == 0 { throw refused("a link to a missing file") }
        let folder = (absolute as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue,
            access(folder, W_OK) == 0
        else {
            throw refused("cannot write in \(Sanitizer.displayName(folder))")
        }
        return .file(absolute)
    }

    static func write(_ files: [FileSnapshot], to target: Target) throws {
        // Every key in every entry, null where there is no value, as NDJSON writes them: `f["error"]` never fails.
        let entries: [[String: Any]] = files.map { file in
            [
                "file": file.name, "phase": file.phase.rawValue, "attempts": file.attempt,
                "mediaID": file.result?.mediaID ?? NSNull(), "location": file.result?.location ?? NSNull(),
                "httpStatus": file.httpStatus ?? NSNull(),
                "error": file.error.map { $0.forFile(file.name).description } ?? NSNull(),
            ]
        }
        var data = try JSONSerialization.data(
            withJSONObject: ["files": entries], options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        data.append(0x0A)
        switch target {
        case .stream(let path):
            try write(data, into: path)
        case .file(let path):
            // Temp file and rename, so a reader never sees half a file.
            let temporary = path + ".tmp-\(getpid())"
            do {
                try write(data, into: temporary, creating: true)
            } catch {
                unlink(temporary)
                throw error
            }
            guard rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw ResultsError(reason: reason)
            }
        }
    }

    private static func write(_ data: Data, into path: String, creating: Bool = false) throws(ResultsError) {
        let descriptor =
            creating
            ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) : open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        guard descriptor >= 0 else { throw ResultsError(reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var failure: Int32 = 0
        data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == 0, creating, fsync(descriptor) != 0 { failure = errno }
        guard failure == 0 else { throw ResultsError(reason: String(cString: strerror(failure))) }
    }

    struct ResultsError: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }
}
