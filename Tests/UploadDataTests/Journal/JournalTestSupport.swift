import Foundation
import GRDB
import UploadDomain

/// A fresh temporary folder for one test, removed (permissions restored first) after `body`.
func withJournalFolder<T>(_ body: (String) throws -> T) throws -> T {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("uploader-tui-journal-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer {
        chmod(folder, 0o700)
        try? FileManager.default.removeItem(atPath: folder)
    }
    return try body(folder)
}

/// An item for a file that need not exist.
func journalItem(_ id: Int, path: String? = nil, size: Int64 = 1000, modified: Double = 1_700_000_000.123_456_7)
    -> UploadItem
{
    let path = path ?? "/photos/\(id).jpg"
    return UploadItem(
        id: id, path: path, relativePath: (path as NSString).lastPathComponent, size: size, modified: modified,
        contentType: "image/jpeg")
}

/// An item for a file on disk, with its real size and mtime as the scanner would find them.
func journalItem(_ id: Int, existing path: String) -> UploadItem {
    var info = stat()
    precondition(stat(path, &info) == 0, "no file at \(path)")
    let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    return journalItem(id, path: path, size: Int64(info.st_size), modified: modified)
}

/// The same item with another size or mtime, as if the file changed since.
func changedItem(_ item: UploadItem, size: Int64? = nil, modified: Double? = nil) -> UploadItem {
    UploadItem(
        id: item.id, path: item.path, relativePath: item.relativePath, size: size ?? item.size,
        modified: modified ?? item.modified, contentType: item.contentType)
}

func doneEntry(_ item: UploadItem, to destination: String, body: String = "{\"ok\":true}") -> JournalEntry {
    JournalEntry(
        item: item, destination: destination, attempt: 1,
        outcome: .done(UploadResult(httpStatus: 201, body: body, isJSON: true, location: "up/x", mediaID: "m1")))
}

func failedEntry(_ item: UploadItem, to destination: String, attempt: Int = 3) -> JournalEntry {
    JournalEntry(
        item: item, destination: destination, attempt: attempt,
        outcome: .failed(UploadError(.serverError, file: item.relativePath, httpStatus: 500, bodyExcerpt: "boom")))
}

/// Copies the WAL a closed journal leaves into its database file and removes it, for a test that edits the file's
/// bytes: SQLite would otherwise read the newer pages from the WAL.
func checkpoint(journalAt path: String) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
    try queue.close()
}
