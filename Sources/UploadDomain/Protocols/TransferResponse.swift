/// What the server answered to one request.
public struct TransferResponse: Sendable, Equatable {
    public var status: Int
    /// Header names lowercased; the last value wins.
    public var headers: [String: String]
    /// The body as text (lossy UTF-8), capped by the transport.
    public var body: String
    /// The content hash of each file the request carried, in the request's order, where the transport
    /// computed it while sending the whole file; empty or nil entries are hashed later by the journal.
    public var contentHashes: [String?]
    /// The digests of the whole response body, for a request that asked for them (`digestsResponseBody`).
    public var bodyDigest: BodyDigest?
    /// The credentials the request carried (its token, secret header and URL values): a server that echoes one
    /// back ("invalid token 'abc'") must not have it shown or stored.
    public var credentials: [String] = []

    /// Creates a response.
    public init(status: Int, headers: [String: String] = [:], body: String = "", contentHashes: [String?] = []) {
        self.status = status
        self.headers = headers
        self.body = body
        self.contentHashes = contentHashes
    }

    /// The quoted `ETag` without its quotes (and without a weak `W/` prefix), when the server sent one.
    public var etag: String? {
        guard var tag = headers["etag"]?.trimmingSpaces, !tag.isEmpty else { return nil }
        if tag.hasPrefix("W/") { tag.removeFirst(2) }
        if tag.count >= 2, tag.first == "\"", tag.last == "\"" { tag = String(tag.dropFirst().dropLast()) }
        return tag
    }

    /// True for 2xx.
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// When the answer came, seconds since 1970: what a `Retry-After` date counts from when the answer has no
    /// `Date` of its own.
    public var receivedAt: Double?

    /// `Retry-After` in seconds: a number of seconds, or an HTTP date (`Wed, 21 Oct 2026 07:28:00 GMT`) counted
    /// from the answer's `Date` (else from when it came); nil when absent or neither.
    public var retryAfter: Double? {
        guard let value = headers["retry-after"]?.trimmingSpaces else { return nil }
        if let seconds = HTTPDate.seconds(value) { return seconds }
        guard let date = HTTPDate.parse(value),
            let now = headers["date"].flatMap({ HTTPDate.parse($0.trimmingSpaces) }) ?? receivedAt
        else { return nil }
        return max(0, date - now)
    }

    /// The error this response means for a file, or nil for 2xx.
    public func error(file: String?) -> UploadError? {
        guard !isSuccess else { return nil }
        // A redirect is not followed: where it points is what the user needs, not its body.
        let excerpt =
            if (300..<400).contains(status), let location = headers["location"], !location.isEmpty {
                "Location: " + Sanitizer.excerpt(shown(Redactor.url(location)))
            } else {
                Sanitizer.excerpt(shown(body))
            }
        return UploadError(
            UploadError.code(forStatus: status), file: file, httpStatus: status, bodyExcerpt: excerpt,
            retryAfter: retryAfter)
    }

    /// `text` (the body or a part of it) as it may be shown or stored: each credential replaced by `REDACTED`, also
    /// where a JSON encoder escaped it.
    public func shown(_ text: String) -> String {
        Redactor.redacting(credentials, in: text)
    }
}
