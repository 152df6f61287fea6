import CXXHash
import Foundation
import UploadDomain

/// A file, or a range of one, read with `pread` straight into libcurl's buffer: a PUT body or one
/// multipart file part.
///
/// The file is closed after the last read. It may come already open (the transfer opens its first files when it
/// checks them, so a file is not opened twice); otherwise it is opened at the first read, as after a rewind. A whole
/// file is hashed (XXH3-128) on the way, so the journal need not read it again; a rewind to the start (libcurl
/// resending on a fresh connection) starts the hash over.
///
/// Touched only on its transfer's curl thread, from libcurl's read and seek callbacks.
final class FileBody {
    let item: UploadItem
    private let start: Int64
    let length: Int64
    private var descriptor: Int32 = -1
    /// Bytes of the range read so far.
    private(set) var bytesRead: Int64 = 0
    /// The most libcurl asked for in one read: its upload buffer's size (for tests).
    private(set) var largestRead = 0
    /// nil for a part of a file, or once a rewind to the middle made the hash unusable.
    private var hashState: OpaquePointer?
    /// Why a read failed, for the error libcurl's abort turns into.
    private(set) var failure: UploadError?
    /// The `--bwlimit` share of the transfer the body belongs to.
    var throttle: TransferThrottle?
    /// The most one read hands libcurl, whatever its buffer holds (`frameFittingRead` over HTTP/2 and TLS).
    var readLimit = Int.max

    /// A read that fills one HTTP/2 DATA frame to exactly one TLS record. libcurl 7.88 makes each chunk a read
    /// returns into DATA frames of at most 16,384 bytes, and writes each frame with its 9-byte header in one
    /// `SSL_write`: a full frame becomes a 16,384-byte record and a 9-byte one, two `send`s and two records for the
    /// server to open. A read of 16,384 - 9 bytes makes a frame that fits one record.
    static let frameFittingRead = 16_384 - 9

    /// What `read(into:capacity:)` answers when the bandwidth cap says wait: the transfer is to pause.
    static let paused = -2

    /// A body of `length` bytes of `item` from `start`; the whole file by default. `descriptor`: the file, already
    /// open for reading, which the body then owns; -1 to open it at the first read.
    init(_ item: UploadItem, start: Int64 = 0, length: Int64? = nil, descriptor: Int32 = -1) {
        self.item = item
        self.descriptor = descriptor
        self.start = start
        self.length = length ?? item.size
        if start == 0, self.length == item.size {
            hashState = XXH3_createState()
            XXH3_128bits_reset(hashState)
        }
    }

    deinit {
        closeFile()
        if let hashState { XXH3_freeState(hashState) }
    }

    /// Fills `buffer` with the next bytes; 0 at the end, -1 when the file cannot be read (see `failure`),
    /// `FileBody.paused` when the bandwidth cap has no tokens left.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        // The end is checked first: libcurl asks once more after the last byte, and the file is closed by then.
        largestRead = max(largestRead, capacity)
        let wanted = Int(min(Int64(min(capacity, readLimit)), length - bytesRead))
        guard wanted > 0 else { return 0 }
        if let throttle, throttle.allow(wanted) == 0 { return Self.paused }
        if descriptor < 0 {
            do {
                descriptor = try ScannedFile.open(item)
            } catch {
                failure = error
                return -1
            }
        }
        let count = pread(descriptor, buffer, wanted, off_t(start + bytesRead))
        guard count >= 0 else {
            failure = UploadError(.fileUnreadable, file: item.relativePath, cause: String(cString: strerror(errno)))
            return -1
        }
        // A file cut short ends the request now: answering 0 would leave libcurl owing the server the rest of the
        // length it announced, and the transfer would wait for the stall timeout.
        guard count > 0 else {
            let cause = "size \(item.size) became \(start + bytesRead)"
            failure = UploadError(.fileChanged, file: item.relativePath, cause: cause)
            return -1
        }
        // The last bytes go out only while the file is as scanned: once they have, the server holds a whole-looking
        // copy of the old length under the file's name, however the run then calls the file. Aborted here, the
        // request stores nothing, as for a file cut short.
        if bytesRead + Int64(count) == length, let change = ScannedFile.change(of: item, openedAs: descriptor) {
            failure = UploadError(.fileChanged, file: item.relativePath, cause: change)
            return -1
        }
        bytesRead += Int64(count)
        if let hashState { _ = cx_xxh3_128_update(hashState, buffer, count) }
        if bytesRead == length { closeFile() }
        return count
    }

    /// Moves to `offset` within the range, as libcurl asks before sending the body again.
    /// - Returns: false when the offset lies outside the range.
    func seek(to offset: Int64) -> Bool {
        guard offset >= 0, offset <= length else { return false }
        bytesRead = offset
        if let hashState {
            if offset == 0 {
                XXH3_128bits_reset(hashState)
            } else {
                XXH3_freeState(hashState)
                self.hashState = nil
            }
        }
        return true
    }

    /// The XXH3-128 of the whole file, once every byte has been read from the start; else nil.
    var contentHash: String? {
        guard let hashState, bytesRead == length else { return nil }
        return FileHasher.hex(XXH3_128bits_digest(hashState))
    }

    private func closeFile() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }
}
