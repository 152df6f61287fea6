import Foundation
import UploadDomain

extension CurlTransfer {
    /// Files a request keeps open from the check to its body: a request of more holds only these at once, and
    /// opens the rest at their first read.
    static let filesKeptOpen = 8

    /// Opens every file of the request, so an unreadable or replaced one fails it before anything is sent; keeps
    /// the first descriptors for the bodies, which would otherwise open each file a second time.
    /// - Throws: `ScannedFile.open`'s error for the first file that cannot be sent.
    func openFiles() throws(UploadError) {
        closeUnusedFiles()
        for (index, item) in request.files.enumerated() {
            let fd: Int32
            do {
                fd = try ScannedFile.open(item)
            } catch {
                closeUnusedFiles()
                throw error
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
