import Foundation
import UploadDomain

/// The checksum S3 keeps for an object uploaded with one, recomputed from a local file: the file's checksum for a
/// single PUT; for a multipart upload the checksum of the parts' binary checksums one after another, then `-` and
/// the number of parts. Hex, as `--verify` reports digests.
enum S3Checksum {
    /// The multipart checksum from each part's checksum, in part order.
    static func multipart(_ partChecksums: [[UInt8]], algorithm: S3ChecksumAlgorithm) -> String {
        URIEncoding.hex(algorithm.checksum(of: partChecksums.flatMap { $0 })) + "-\(partChecksums.count)"
    }

    /// The checksum by `algorithm` that `item` gets when uploaded with `planner`'s threshold and part size.
    /// - Throws: `UploadError` when the file cannot be read.
    static func expected(
        for item: UploadItem, planner: S3Planner, algorithm: S3ChecksumAlgorithm
    ) throws(UploadError) -> String {
        func checksum(offset: Int64, length: Int64?) throws(UploadError) -> [UInt8] {
            try PayloadDigest.of(item, offset: offset, length: length, algorithm: algorithm, signed: false).checksum
                ?? []
        }
        guard item.size >= planner.multipartThreshold else {
            return URIEncoding.hex(try checksum(offset: 0, length: nil))
        }
        let parts = try planner.partRanges(of: item).map { (part) throws(UploadError) in
            try checksum(offset: part.offset, length: part.length)
        }
        return multipart(parts, algorithm: algorithm)
    }

    /// A stored checksum (base64, `-N` for a multipart object) in hex, or nil if malformed.
    static func hex(ofStored value: String, algorithm: S3ChecksumAlgorithm) -> String? {
        let parts = value.split(separator: "-", maxSplits: 1)
        guard let first = parts.first, let bytes = Data(base64Encoded: String(first)),
            bytes.count == algorithm.byteCount
        else { return nil }
        return URIEncoding.hex(Array(bytes)) + (parts.count == 2 ? "-\(parts[1])" : "")
    }
}
