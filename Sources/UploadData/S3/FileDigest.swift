import Crypto
import Foundation
import UploadDomain

/// SHA-256 (hex, for SigV4's signed payload) and MD5 (base64, for Content-MD5; hex, for an ETag) of a file range,
/// read once.
struct FileDigest {
    let sha256Hex: String
    let md5: [UInt8]
    var md5Base64: String { Data(md5).base64EncodedString() }
    var md5Hex: String { URIEncoding.hex(md5) }

    /// Digests of at least this many bytes are computed off the caller's thread (`computed`).
    static let offThreadBytes: Int64 = 4 << 20

    /// The digests, computed on the digest queue for a range of `offThreadBytes` or more: requests are planned on a
    /// curl loop's thread, where hashing a 16 MiB part held up every transfer of that loop for tens of milliseconds.
    static func computed(_ item: UploadItem, offset: Int64 = 0, length: Int64? = nil) async throws(UploadError)
        -> FileDigest
    {
        guard (length ?? item.size) >= offThreadBytes else { return try of(item, offset: offset, length: length) }
        let result: Result<FileDigest, UploadError> = await withCheckedContinuation { continuation in
            hashing.async {
                continuation.resume(
                    returning: Result { () throws(UploadError) in
                        try of(item, offset: offset, length: length)
                    })
            }
        }
        return try result.get()
    }

    private static let hashing = DispatchQueue(label: "uploader-tui.digest", qos: .utility, attributes: .concurrent)

    /// Reads `length` bytes from `offset` in 128 KiB chunks, so memory stays flat for any part size, and small with
    /// many parts hashed at once.
    static func of(_ item: UploadItem, offset: Int64 = 0, length: Int64? = nil) throws(UploadError) -> FileDigest {
        let length = length ?? item.size
        let fd = open(item.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw UploadError(.fileUnreadable, file: item.relativePath, cause: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var sha = SHA256()
        var md5 = Insecure.MD5()
        var buffer = [UInt8](repeating: 0, count: 128 << 10)
        var position = offset
        var left = length
        while left > 0 {
            let count = buffer.withUnsafeMutableBytes {
                pread(fd, $0.baseAddress, min($0.count, Int(left)), off_t(position))
            }
            guard count > 0 else {
                let cause = count < 0 ? String(cString: strerror(errno)) : "file is shorter than when scanned"
                throw UploadError(count < 0 ? .fileUnreadable : .fileChanged, file: item.relativePath, cause: cause)
            }
            buffer.withUnsafeBytes { raw in
                let chunk = UnsafeRawBufferPointer(rebasing: raw[0..<count])
                sha.update(bufferPointer: chunk)
                md5.update(bufferPointer: chunk)
            }
            position += Int64(count)
            left -= Int64(count)
        }
        return FileDigest(
            sha256Hex: sha.finalize().map { String(format: "%02x", $0) }.joined(),
            md5: Array(md5.finalize()))
    }
}
