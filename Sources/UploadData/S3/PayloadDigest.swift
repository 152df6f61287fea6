import Crypto
import Foundation
import UploadDomain

/// What an S3 request needs of its body, a file range read once: the hex SHA-256 that SigV4 signs when the payload
/// is signed, and the checksum by the upload's algorithm.
struct PayloadDigest {
    /// `x-amz-content-sha256`: the hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
    let payloadHash: String
    /// The body's checksum by the upload's algorithm.
    let checksum: [UInt8]

    var base64: String { Data(checksum).base64EncodedString() }

    /// Digests of at least this many bytes are computed off the caller's thread.
    static let offThreadBytes: Int64 = 4 << 20

    /// The digest, computed on the digest queue for a range of `offThreadBytes` or more: requests are planned on a
    /// curl loop's thread, where hashing a 16 MiB part held up every transfer of that loop for tens of milliseconds.
    static func computed(
        _ item: UploadItem, offset: Int64 = 0, length: Int64? = nil, algorithm: S3ChecksumAlgorithm, signed: Bool
    ) async throws(UploadError) -> PayloadDigest {
        let compute: @Sendable () throws(UploadError) -> PayloadDigest = {
            try of(item, offset: offset, length: length, algorithm: algorithm, signed: signed)
        }
        guard (length ?? item.size) >= offThreadBytes else { return try compute() }
        let result: Result<PayloadDigest, UploadError> = await withCheckedContinuation { continuation in
            hashing.async { continuation.resume(returning: Result(catching: compute)) }
        }
        return try result.get()
    }

    private static let hashing = DispatchQueue(label: "uploader-tui.digest", qos: .utility, attributes: .concurrent)

    /// Reads the range once, for the checksum and, only when `signed`, the SHA-256.
    static func of(
        _ item: UploadItem, offset: Int64 = 0, length: Int64? = nil, algorithm: S3ChecksumAlgorithm, signed: Bool
    ) throws(UploadError) -> PayloadDigest {
        var checksum = S3ChecksumAlgorithm.Digest(algorithm)
        // A SHA-256 checksum is the signed payload's digest too: one pass serves both.
        var sha = signed && algorithm != .sha256 ? SHA256() : nil
        try FileChunks.read(item, offset: offset, length: length) { chunk in
            checksum.update(chunk)
            sha?.update(bufferPointer: chunk)
        }
        let sum = checksum.finalize()
        guard signed else { return PayloadDigest(payloadHash: SigV4Signer.unsignedPayload, checksum: sum) }
        let signedDigest = sha.map { Array($0.finalize()) } ?? sum
        return PayloadDigest(payloadHash: URIEncoding.hex(signedDigest), checksum: sum)
    }
}
