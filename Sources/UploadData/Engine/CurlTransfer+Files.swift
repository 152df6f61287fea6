import Foundation
import UploadDomain

extension CurlTransfer {
    /// Files a request keeps open from the check to its body: a request of more holds only these at once, and
    /// opens the rest at their first read.
    static let filesKeptOpen = 8

    /// Opens every file of the request, so an unreadable one fails it before anything is sent; keeps the first
    /// descriptors for the bodies, which would otherwise open each file a second time.
    /// - Throws: `fileUnreadable` for the first file that cannot be opened.
    func openFiles() throws(UploadError) {
        closeUnusedFiles()
        for (index, item) in request.files.enumerated() {
            let fd = item.path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
            guard fd >= 0 else {
                let cause = String(cString: strerror(errno))
                closeUnusedFiles()
                throw UploadError(.fileUnreadable, file: item.relativePath, cause: cause)
            }
            if index < Self.filesKeptOpen {
                openedFiles.append(fd)
            } else {
                close(fd)
            }
        }
    }

    /// The descriptor kept for file `index`, handed over to its body; -1 when none was kept.
    func takeOpened(_ index: Int) -> Int32 {
        guard index < openedFiles.count else { return -1 }
        defer { openedFiles[index] = -1 }
        return openedFiles[index]
    }

    /// Closes descriptors no body took (a request that failed while being built).
    func closeUnusedFiles() {
        for fd in openedFiles where fd >= 0 { close(fd) }
        openedFiles.removeAll()
    }
}
