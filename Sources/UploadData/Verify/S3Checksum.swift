import Crypto
import Foundation
import UploadDomain

/// The SHA-256 checksum S3 keeps for an object uploaded with one, recomputed from a local file: the file's SHA-256
/// for a single PUT; for a multipart upload the SHA-256 of the parts' binary SHA-256s one after another, then `-`
/// and the number of parts. Hex, as `--verify` reports digests.
enum S3Checksum {
    /// The multipart checksum from each part's SHA-256, in part order.
    static func multipart(partSHA256s: [[UInt8]]) -> String {
        var sha = SHA256()
        for part in partSHA256s { sha.update(data: part) }
        return URIEncoding.hex(sha.finalize()) + "-\(partSHA256s.count)"
    }

    /// The checksum `item` gets when uploaded with `planner`'s threshold and part size.
    /// - Throws: `UploadError` when the file cannot be read.
    static func expected(for item: UploadItem, planner: S3Planner) throws(UploadError) -> String {
        guard item.size >= planner.multipartThreshold else { return try PayloadDigest.of(item).hex }
        let parts = try planner.partRanges(of: item).map { (part) throws(UploadError) in
            try PayloadDigest.of(item, offset: part.offset, length: part.length).sha256
        }
        return multipart(partSHA256s: parts)
    }

    /// A stored `x-amz-checksum-sha256` value (base64, `-N` for a multipart object) in hex, or nil if malformed.
    static func hex(ofStored value: String) -> String? {
        let parts = value.split(separator: "-", maxSplits: 1)
        guard let first = parts.first, let bytes = Data(base64Encoded: String(first)), bytes.count == 32 else {
            return nil
        }
        return URIEncoding.hex(Array(bytes)) + (parts.count == 2 ? "-\(parts[1])" : "")
    }
}
