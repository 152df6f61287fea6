import Crypto
import Foundation
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams bytes into a temporary file next to its destination and renames it into place once
/// complete, so a half-received upload never carries the final name.
///
/// Writes are plain blocking `write(2)` calls: each call moves one network chunk (tens of KiB) into
/// the page cache, which is cheaper than hopping to a thread pool per chunk. No fsync: this is a
/// test peer, durability across power loss is not a goal.
final class FileSink {
    /// Where the file ends up.
    let destination: StoragePath
    /// Bytes written so far.
    private(set) var size = 0
    private let finalPath: String
    private let temporaryPath: String
    private var descriptor: Int32
    private var hasher = SHA256()
    private var md5 = Insecure.MD5()
    /// Flip the first stored byte (`--corrupt-rate`): the digests then describe the wrong bytes, as a bad disk
    /// behind an honest server would.
    private var corrupt: Bool

    /// Opens a fresh temp file in the destination folder (creating folders as needed).
    /// - Parameter corrupt: store the first byte inverted, so a client's read-back catches it.
    init(destination: StoragePath, corrupt: Bool = false) throws {
        self.destination = destination
        self.corrupt = corrupt
        self.finalPath = try destination.prepareParentDirectory()
        let folder = (finalPath as NSString).deletingLastPathComponent
        // A short fixed-shape temp name: the original name may already be near NAME_MAX.
        self.temporaryPath = folder + "/.upload-" + UUID().uuidString + ".part"
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ReferenceServerError(.storageFailed, "cannot create \(destination.rootRelativePath): \(Self.errnoText())")
        }
        self.descriptor = fd
    }

    deinit {
        // A sink dropped without `commit()` is an aborted upload: leave no litter behind.
        if descriptor >= 0 {
            close(descriptor)
            unlink(temporaryPath)
        }
    }

    /// Appends a chunk, retrying short writes and `EINTR`.
    func write(_ chunk: ByteBuffer) throws {
        var buffer = chunk
        if corrupt, let first = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self) {
            buffer.setInteger(~first, at: buffer.readerIndex)
            corrupt = false
        }
        try buffer.withUnsafeReadableBytes { bytes in
            hasher.update(bufferPointer: bytes)
            md5.update(bufferPointer: bytes)
            var offset = 0
            while offset < bytes.count {
                let written = posixWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw ReferenceServerError(.storageFailed, "write failed for \(destination.rootRelativePath): \(Self.errnoText())")
                }
                offset += written
            }
        }
        size += buffer.readableBytes
    }

    /// The MD5 of everything written, as lowercase hex (an S3-style ETag without its quotes).
    var md5Hex: String { md5.finalize().hexString }

    /// Closes the temp file and atomically renames it to the final name.
    /// - Returns: the SHA-256 of everything written, as lowercase hex.
    @discardableResult
    func commit() throws -> String {
        let fd = descriptor
        descriptor = -1
        guard close(fd) == 0 else {
            unlink(temporaryPath)
            throw ReferenceServerError(.storageFailed, "close failed for \(destination.rootRelativePath)")
        }
        guard rename(temporaryPath, finalPath) == 0 else {
            let reason = Self.errnoText()
            unlink(temporaryPath)
            throw ReferenceServerError(.pathConflict, "cannot store \(destination.rootRelativePath): \(reason)")
        }
        return hasher.finalize().hexString
    }

    /// Deletes the temp file without renaming it.
    func abort() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(temporaryPath)
    }

    static func errnoText() -> String {
        String(cString: strerror(errno))
    }
}

/// `write(2)` under a name that does not clash with `FileSink.write(_:)`.
private func posixWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}

extension Digest {
    /// Lowercase hex form of the digest.
    var hexString: String {
        self.map { String(format: "%02x", $0) }.joined()
    }
}
