import Crypto
import Foundation
import UploadDomain

/// SHA-256 (hex, for SigV4's signed payload) and MD5 (hex, for an ETag) of a file range, read once: what `--verify`
/// compares with the stored copy.
struct FileDigest {
    let sha256Hex: String
    let md5: [UInt8]
    var md5Hex: String { URIEncoding.hex(md5) }

    /// Reads `length` bytes from `offset`.
    static func of(_ item: UploadItem, offset: Int64 = 0, length: Int64? = nil) throws(UploadError) -> FileDigest {
        var sha = SHA256()
        var md5 = Insecure.MD5()
        try FileChunks.read(item, offset: offset, length: length) { chunk in
            sha.update(bufferPointer: chunk)
            md5.update(bufferPointer: chunk)
        }
        return FileDigest(sha256Hex: URIEncoding.hex(Array(sha.finalize())), md5: Array(md5.finalize()))
    }
}

enum FileChunks {
    /// Hands `length` bytes from `offset` (to the end by default) to `body` in 128 KiB chunks, so memory stays flat
    /// for any part size, and small with many parts hashed at once.
    static func read(
        _ item: UploadItem, offset: Int64, length: Int64?, _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(UploadError) {
        let fd = try ScannedFile.open(item)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128 << 10)
        var position = offset
        var left = length ?? item.size
        while left > 0 {
            let count = buffer.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress, min($0.count, Int(left)), off_t(position))
            }
            guard count > 0 else {
                let cause = count < 0 ? String(cString: strerror(errno)) : "file is shorter than when scanned"
                throw UploadError(count < 0 ? .fileUnreadable : .fileChanged, file: item.relativePath, cause: cause)
            }
            buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            position += Int64(count)
            left -= Int64(count)
        }
    }
}
