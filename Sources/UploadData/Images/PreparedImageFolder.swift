import Foundation
import Synchronization
import UploadDomain

/// The private folder prepared images are written to: `$TMPDIR/uploader-tui-XXXXXX` (else under /tmp), mode 0700,
/// created on first use (most runs prepare nothing) and once per process, with a new file name for every image.
///
/// The temporary directory rather than `$XDG_CACHE_HOME`: these files are worth nothing once sent, and a tmpfs or a
/// reboot clearing them is welcome when a crash skips `remove()`. Until then, each folder names its process in an
/// `owner` file, and the next run that prepares images removes the folders of processes that are gone
/// (`PreparedImageFolder+Abandoned.swift`).
final class PreparedImageFolder: Sendable {
    /// The folder of this process, shared by every preparer it creates.
    static let process = PreparedImageFolder(parent: defaultParent())

    private let parent: String
    /// The folder once created, and the number of the last file named in it.
    private let state = Mutex<(path: String?, counter: Int)>((nil, 0))

    /// A folder created inside `parent` on first use.
    init(parent: String) {
        self.parent = parent
    }

    /// `$TMPDIR` when set to an absolute path, else /tmp.
    static func defaultParent() -> String {
        let environment = ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
        return environment.hasPrefix("/") ? environment : "/tmp"
    }

    /// The folder's path if it exists, without creating it.
    var existingPath: String? { state.withLock { $0.path } }

    /// A path in the folder (created if needed) that no other image of this process uses, ending in `.extension`.
    /// - Throws: `preparedCopyUnwritable` naming `file` when the folder cannot be created.
    func newFile(extension fileExtension: String, for file: String) throws(UploadError) -> String {
        let result: Result<String, UploadError> = state.withLock { state in
            if state.path == nil {
                var template = Array((parent + "/uploader-tui-XXXXXX").utf8CString)
                // mkdtemp creates the folder with mode 0700 under a name nobody can predict.
                guard
                    let created = template.withUnsafeMutableBufferPointer({
                        mkdtemp($0.baseAddress!).map { String(cString: $0) }
                    })
                else {
                    let cause = "(no temporary folder in \(parent)): \(String(cString: strerror(errno)))"
                    return .failure(UploadError(.preparedCopyUnwritable, file: file, cause: cause))
                }
                state.path = created
                Self.recordOwner(in: created)
                Self.removeAbandoned(in: parent, except: created)
            }
            state.counter += 1
            return .success("\(state.path!)/\(state.counter).\(fileExtension)")
        }
        return try result.get()
    }

    /// True when `path` names a file inside the folder (so removing it cannot touch anything else).
    func contains(_ path: String) -> Bool {
        guard let folder = existingPath, path.hasPrefix(folder + "/") else { return false }
        return !path.dropFirst(folder.count + 1).contains("/")
    }

    /// Removes the folder and what is left in it; a later `newFile` creates a new one.
    func remove() {
        let folder = state.withLock { state in
            let path = state.path
            state.path = nil
            return path
        }
        guard let folder else { return }
        try? FileManager.default.removeItem(atPath: folder)
    }
}
