import Foundation
import UploadDomain

/// Opening a file to send it: its path must still hold the file the scan found, or nothing of it is sent. A link
/// put in a photo's place after the scan would otherwise send whatever it points to.
enum ScannedFile {
    /// Opens `item` for reading.
    /// - Throws: `fileUnreadable` when it cannot be opened; `fileChanged` when its path holds another file now
    ///   (moved over it, or a link), something that is not a file, or the file with another size or
    ///   modification time.
    static func open(_ item: UploadItem) throws(UploadError) -> Int32 {
        // O_NONBLOCK: a FIFO put in the file's place must not hold the thread until a writer comes.
        let descriptor = item.path.withCString { Glibc.open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard descriptor >= 0 else {
            throw UploadError(.fileUnreadable, file: item.relativePath, cause: String(cString: strerror(errno)))
        }
        if let change = change(of: item, openedAs: descriptor) {
            close(descriptor)
            throw UploadError(.fileChanged, file: item.relativePath, cause: change + " since the scan; nothing sent")
        }
        return descriptor
    }

    /// Checks that `item`'s path still holds the scanned file, as `open` does, for readers that open it by path.
    static func check(_ item: UploadItem) throws(UploadError) {
        close(try open(item))
    }

    /// How the file open as `descriptor` differs from the scanned `item`, or nil when it does not.
    static func change(of item: UploadItem, openedAs descriptor: Int32) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return String(cString: strerror(errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else { return "its path no longer holds a regular file" }
        if Int64(info.st_size) != item.size { return "size \(item.size) became \(info.st_size)" }
        // An item the scan did not make (a prepared copy) has no identity, and no scanned time to compare.
        guard let identity = item.identity else { return nil }
        if identity != FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)) {
            return "another file (or a link) took its place"
        }
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        return modified == item.modified ? nil : "it was modified"
    }
}
