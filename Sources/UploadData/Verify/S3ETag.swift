import Crypto
import UploadDomain

/// The ETag S3 gives an object, recomputed from a local file: its MD5 for a single PUT; for a multipart upload the
/// MD5 of the parts' binary MD5s one after another, then `-` and the number of parts.
enum S3ETag {
    /// The multipart ETag from each part's MD5, in part order.
    static func multipart(partMD5s: [[UInt8]]) -> String {
        var md5 = Insecure.MD5()
        for part in partMD5s { md5.update(data: part) }
        return URIEncoding.hex(md5.finalize()) + "-\(partMD5s.count)"
    }

    /// The ETag `item` gets when uploaded with `planner`'s threshold and part size.
    /// - Throws: `UploadError` when the file cannot be read.
    static func expected(for item: UploadItem, planner: S3Planner) throws(UploadError) -> String {
        guard item.size >= planner.multipartThreshold else { return try FileDigest.of(item).md5Hex }
        let parts = try planner.partRanges(of: item).map { (part) throws(UploadError) in
            try FileDigest.of(item, offset: part.offset, length: part.length).md5
        }
        return multipart(partMD5s: parts)
    }
}
