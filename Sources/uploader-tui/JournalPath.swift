import Foundation
import UploadData
import UploadDomain

/// Where a run's journal lives: `--journal PATH`, else the default under `$XDG_STATE_HOME`.
enum JournalPath {
    /// The journal's absolute path. The default's folders are created when the journal is opened; a folder named
    /// with `--journal` must exist already, as for `--results` and `--log-file`, so a typo makes no stray tree.
    /// - Throws: `UsageError` naming the folder when `--journal`'s folder is missing or is not a folder.
    static func resolve(_ option: String?, environment: [String: String]) throws(UsageError) -> String {
        guard let option else {
            return FileScanner.absolute(SQLiteJournal.defaultPath(environment: environment), environment: environment)
        }
        let path = FileScanner.absolute(option, environment: environment)
        let folder = (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            throw refused(option, "no folder \(Sanitizer.displayName(folder)) (create it first)")
        }
        guard isFolder.boolValue else { throw refused(option, "\(Sanitizer.displayName(folder)) is not a folder") }
        return path
    }

    private static func refused(_ option: String, _ reason: String) -> UsageError {
        UsageError(description: "--journal \(Sanitizer.displayName(option)): \(reason)")
    }
}
