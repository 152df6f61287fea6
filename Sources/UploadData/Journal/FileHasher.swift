import CXXHash
import Foundation

/// XXH3-128 of one file, a chunk per call, so the writer can commit rows between chunks of a large file.
///
/// Used for files the transfer did not hash on the way (S3 multipart uploads, sent in parts). XXH3 rather than
/// SHA-256: SHA-256 (about 1.6 GB/s here) took longer than sending a 2 GiB file over loopback; XXH3 is an order
/// of magnitude faster and is what `xxhsum -H2` prints.
///
/// The hash counts only if the file still has the size and modification time the journal recorded, before
/// and after reading; otherwise it describes other content and is dropped.
final class FileHasher {
    /// What one call did.
    enum Step: Equatable {
        case more
        case finished(contentHash: String)
        /// The file is unreadable, or changed before or during hashing.
        case abandoned
    }

    static let chunkSize = 1 << 20

    let job: HashJob
    private let descriptor: Int32
    private let state: OpaquePointer
    private var bytesRead: Int64 = 0

    /// Opens the file; nil when it is gone or no longer has the recorded size and mtime.
    init?(_ job: HashJob) {
        // O_NONBLOCK: a FIFO put in the file's place must not hold the hashing thread until a writer comes.
        let fd = open(job.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        guard Self.matches(fd, job) else {
            close(fd)
            return nil
        }
        self.job = job
        descriptor = fd
        state = XXH3_createState()
        XXH3_128bits_reset(state)
    }

    deinit {
        XXH3_freeState(state)
        close(descriptor)
    }

    /// Reads and hashes the next chunk into `buffer` (at least `chunkSize` bytes, reused across calls).
    func step(buffer: inout [UInt8]) -> Step {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            return errno == EINTR ? .more : .abandoned
        }
        if count == 0 {
            guard bytesRead == job.size, Self.matches(descriptor, job) else { return .abandoned }
            return .finished(contentHash: Self.hex(XXH3_128bits_digest(state)))
        }
        bytesRead += Int64(count)
        guard bytesRead <= job.size else { return .abandoned }
        buffer.withUnsafeBytes { _ = cx_xxh3_128_update(state, $0.baseAddress, count) }
        return .more
    }

    private static func matches(_ fd: Int32, _ job: HashJob) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG && Int64(info.st_size) == job.size
            && JournalFiles.modified(info) == job.modified
    }

    /// The canonical (big-endian) form, as `xxhsum -H2` prints it.
    static func hex(_ hash: XXH128_hash_t) -> String {
        var canonical = XXH128_canonical_t()
        XXH128_canonicalFromHash(&canonical, hash)
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for byte in withUnsafeBytes(of: canonical.digest, Array.init) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
