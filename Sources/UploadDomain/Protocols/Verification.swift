/// What reading back one stored file found (`--verify`).
public enum Verification: Sendable, Equatable {
    /// The stored copy has the digest of the bytes sent, named as `kind:hex` (`sha256:…`, `md5:…`, `crc32:…`,
    /// `crc32-parts:…`, `etag:…-N`).
    case verified(String)
    /// A different digest (`verifyMismatch`) or none to be had (`verifyUnavailable`).
    case failed(UploadError)

    /// Compares what was sent with what the server reports, as `kind` (`sha256`, `md5`, `crc32-parts`, `etag`…).
    /// - Parameters:
    ///   - sent: the digest of the bytes sent, lowercase hex.
    ///   - stored: the digest the server reports for its copy; compared case-insensitively.
    public static func compare(kind: String, sent: String, stored: String, file: String) -> Verification {
        if sent.lowercased() == stored.lowercased() { return .verified("\(kind):\(sent)") }
        let cause = "expected \(kind) \(short(sent)), the server holds \(short(stored))"
        return .failed(UploadError(.verifyMismatch, file: file, cause: cause))
    }

    /// The failure for a server that does not say what it stored.
    public static func unavailable(_ cause: String, file: String) -> Verification {
        .failed(UploadError(.verifyUnavailable, file: file, cause: cause))
    }

    /// The first 12 characters of a digest, enough to tell two apart on one line; a multipart ETag keeps its `-N`.
    static func short(_ digest: String) -> String {
        let dash = digest.lastIndex(of: "-")
        let hex = dash.map { String(digest[..<$0]) } ?? digest
        let suffix = dash.map { String(digest[$0...]) } ?? ""
        return (hex.count > 12 ? hex.prefix(12) + "…" : Substring(hex)) + suffix
    }
}
