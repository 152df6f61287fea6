/// What a finished file got back: the status and the server's answer (the stored path or key, not a URL).
public struct UploadResult: Sendable, Equatable {
    public var httpStatus: Int
    /// The response for this file: JSON text when `isJSON`, else a text excerpt.
    public var body: String
    public var isJSON: Bool
    /// The storage path or key the server gave, when it named one.
    public var location: String?
    /// The API's ID for the upload (seed 000), when there is one.
    public var mediaID: String?
    /// The hash of the bytes sent, when the transport computed it on the way (the journal keeps it).
    public var contentHash: String?
    /// With `--verify`: the digest the server's stored copy was found to have, equal to the bytes sent
    /// (`sha256:…`, `md5:…`, `crc32:…`, or an S3 multipart `crc32-parts:…` or `etag:…-N`); nil when not verified.
    public var verified: String?
    /// Parts of an S3 multipart upload sent again on their own after a failure another attempt cured.
    public var partsResent = 0

    /// Creates a result.
    public init(httpStatus: Int, body: String, isJSON: Bool, location: String? = nil, mediaID: String? = nil) {
        self.httpStatus = httpStatus
        self.body = body
        self.isJSON = isJSON
        self.location = location
        self.mediaID = mediaID
    }
}
