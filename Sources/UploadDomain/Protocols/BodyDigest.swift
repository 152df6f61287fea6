/// Digests of bytes that streamed past: a response body read back by `--verify`, or a local file.
public struct BodyDigest: Sendable, Equatable {
    /// Lowercase hex MD5.
    public var md5: String
    /// Lowercase hex SHA-256.
    public var sha256: String
    /// Bytes hashed.
    public var size: Int64

    /// Creates a digest.
    public init(md5: String, sha256: String, size: Int64) {
        self.md5 = md5
        self.sha256 = sha256
        self.size = size
    }
}
