import CCurl
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

    /// The error for a success answered before the whole body was sent: the server cannot hold the file, whatever
    /// its status says (an endpoint answering without reading, a proxy cutting the request short).
    func answeredEarly(status: Int) -> UploadError? {
        guard (200..<300).contains(status), let easy else { return nil }
        let length: Int64? =
            if let inline { Int64(inline.count) } else if let stream { stream.length } else { fileBodies.first?.length }
        var sent: curl_off_t = 0
        guard let length, length > 0, ccurl_easy_getinfo_off(easy, CURLINFO_SIZE_UPLOAD_T, &sent) == CURLE_OK,
            Int64(sent) < length
        else { return nil }
        let file = request.files.count == 1 ? request.files[0].relativePath : nil
        return UploadError(
            .invalidResponse, file: file, httpStatus: status,
            cause: "HTTP \(status) came after \(sent) of \(length) bytes were sent; the file cannot have been stored")
    }
}
