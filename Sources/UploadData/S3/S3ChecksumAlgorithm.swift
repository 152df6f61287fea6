import CZlib
import Crypto

/// The checksum an S3 upload names (`--checksum-algorithm`): S3 checks each body against it, keeps it with the
/// object (`--verify` reads it back), and takes it in place of `Content-MD5` where Object Lock demands one.
public enum S3ChecksumAlgorithm: String, CaseIterable, Sendable {
    /// The default, as with the aws CLI and the SDKs: over HTTPS, where the payload goes unsigned, it is the only
    /// pass over the bytes, and the cheapest one S3 accepts.
    case crc32 = "CRC32"
    /// For a stored digest that is also a cryptographic one; over plain HTTP it is the signed payload's digest too.
    /// Multipart uploads begun by earlier versions named it, and one continued from the journal keeps it.
    case sha256 = "SHA256"

    /// The header that carries a body's checksum (base64), and that `HEAD` answers with.
    var header: String { "x-amz-checksum-\(rawValue.lowercased())" }

    /// The element that names a part's checksum in the completion of a multipart upload.
    var completionElement: String { "Checksum\(rawValue)" }

    /// How `--verify` names the digest it compares (`crc32`, `sha256`).
    var kind: String { rawValue.lowercased() }

    /// The length of a checksum in bytes.
    var byteCount: Int {
        switch self {
        case .crc32: 4
        case .sha256: SHA256.byteCount
        }
    }

    /// The checksum of `bytes` (big-endian for CRC-32, as S3 encodes it).
    func checksum(of bytes: [UInt8]) -> [UInt8] {
        var digest = Digest(self)
        bytes.withUnsafeBytes { digest.update($0) }
        return digest.finalize()
    }

    /// A running checksum.
    struct Digest {
        private var crc: UInt32 = 0
        private var sha: SHA256?

        init(_ algorithm: S3ChecksumAlgorithm) {
            sha = algorithm == .sha256 ? SHA256() : nil
        }

        mutating func update(_ bytes: UnsafeRawBufferPointer) {
            if sha != nil {
                sha?.update(bufferPointer: bytes)
            } else {
                crc = cz_crc32(crc, bytes.baseAddress, bytes.count)
            }
        }

        func finalize() -> [UInt8] {
            if let sha { return Array(sha.finalize()) }
            return withUnsafeBytes(of: crc.bigEndian) { Array($0) }
        }
    }
}
