import Crypto
import Foundation

/// SHA-256 of one file, a chunk per call, so the writer can commit rows between chunks of a large file.
///
/// The hash counts only if the file still has the size and modification time the journal recorded, before
/// and after reading; otherwise it describes other content and is dropped.
final class FileHasher {
    /// What one call did.
    enum Step: Equatable {
        case more
        case finished(sha256: String)
        /// The file is unreadable, or changed before or during hashing.
        case abandoned
    }

    static let chunkSize = 1 << 20

    let job: HashJob
    private let descriptor: Int32
    private var sha = SHA256()
    private var bytesRead: Int64 = 0

    /// Opens the file; nil when it is gone or no longer has the recorded size and mtime.
    init?(_ job: HashJob) {
        let fd = open(job.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        guard Self.matches(fd, job) else {
            close(fd)
            return nil
        }
        self.job = job
        descriptor = fd
    }

    deinit {
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
            return .finished(sha256: Self.hex(sha.finalize()))
        }
        bytesRead += Int64(count)
        guard bytesRead <= job.size else { return .abandoned }
        buffer.withUnsafeBytes { sha.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        return .more
    }

    private static func matches(_ fd: Int32, _ job: HashJob) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && Int64(info.st_size) == job.size && JournalFiles.modified(info) == job.modified
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
