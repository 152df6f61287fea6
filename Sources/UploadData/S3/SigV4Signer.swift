import Crypto
import Foundation

/// Signs HTTP requests with AWS Signature Version 4 (`AWS4-HMAC-SHA256`), in the `Authorization` header or
/// in the query string of a presigned URL.
///
/// With `service == "s3"` the signer follows S3's rules: the path is URI-encoded once and never normalised,
/// and `x-amz-content-sha256` is sent and signed. Any other service gets the generic rules of AWS's SigV4
/// test suite: path segments are normalised (`.`, `..`, empty) and encoded a second time.
///
/// The signer never logs; its `description` shows the scope but no secret.
public struct SigV4Signer: Sendable {
    /// The literal payload hash for a body that is not hashed (S3 only).
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// Hex SHA-256 of the empty string, the payload hash of a request without a body.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    static let algorithm = "AWS4-HMAC-SHA256"
    /// S3 rejects presigned URLs valid for longer than seven days.
    static let maximumExpiry = 604_800

    /// Hex SHA-256 of a whole body, the `payloadHash` for `sign` when the body is in memory.
    /// - Parameter body: The exact bytes that will be sent.
    /// - Returns: 64 lower-case hex digits.
    public static func payloadHash(of body: some DataProtocol) -> String {
        URIEncoding.hex(SHA256.hash(data: body))
    }

    /// The keys that sign.
    public let credentials: AWSCredentials
    /// The region in the credential scope, e.g. `us-east-1`.
    public let region: String
    /// The service in the credential scope, e.g. `s3`.
    public let service: String

    /// Creates a signer for one region and service.
    /// - Parameters:
    ///   - credentials: The access key pair, and session token when temporary.
    ///   - region: The region in the credential scope, e.g. `us-east-1`.
    ///   - service: The service in the credential scope; `"s3"` selects S3's encoding rules.
    public init(credentials: AWSCredentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// S3 neither double-encodes nor normalises paths, and wants `x-amz-content-sha256`.
    var usesS3Rules: Bool { service == "s3" }

    /// Signs a request, returning the headers to add to it.
    ///
    /// Every header in `headers` is signed, so pass only headers that reach the server unchanged. Any
    /// `Authorization`, `x-amz-date` (and for S3 `x-amz-content-sha256`, and with a session token
    /// `x-amz-security-token`) among them is replaced by the signer's own.
    /// - Parameters:
    ///   - method: The HTTP method, e.g. `PUT`.
    ///   - url: The absolute URL as sent (object keys percent-encoded, as `S3Endpoint` builds them).
    ///   - headers: The request's other headers; `Host` is derived from `url` when absent.
    ///   - payloadHash: Hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
    ///   - date: The signing time; S3 rejects requests more than 15 minutes off its clock.
    /// - Returns: `Authorization`, `x-amz-date`, then for S3 `x-amz-content-sha256`, then
    ///   `x-amz-security-token` when the credentials have a session token.
    public func sign(
        method: String, url: String, headers: [(String, String)], payloadHash: String, date: Date
    ) -> [(String, String)] {
        let amzDate = AmzDate(date)
        var added: [(String, String)] = [("x-amz-date", amzDate.timestamp)]
        if usesS3Rules { added.append(("x-amz-content-sha256", payloadHash)) }
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }

        let replaced = Set(added.map(\.0)).union(["authorization"])
        let kept = headers.filter { !replaced.contains(Self.headerName($0.0)) }
        let canonical = canonicalParts(
            method: method, url: RequestURL(url), headers: kept + added, payloadHash: payloadHash)
        let toSign = stringToSign(canonicalRequest: canonical.text, date: amzDate)
        let signature = self.signature(of: toSign, day: amzDate.day)
        let authorization =
            "\(Self.algorithm) Credential=\(credentials.accessKeyID)/\(scope(day: amzDate.day)), "
            + "SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
        return [("Authorization", authorization)] + added
    }

    /// The canonical request for `headers` exactly as given (plus `Host` from `url` when absent).
    ///
    /// Unlike `sign`, this adds no `x-amz-*` headers, so it reproduces published examples that list them.
    /// - Parameters:
    ///   - method: The HTTP method.
    ///   - url: The absolute URL as sent.
    ///   - headers: All headers to sign.
    ///   - payloadHash: Hex SHA-256 of the body, or `UNSIGNED-PAYLOAD`.
    /// - Returns: The six newline-separated lines SigV4 hashes.
    public func canonicalRequest(method: String, url: String, headers: [(String, String)], payloadHash: String)
        -> String
    {
        canonicalParts(method: method, url: RequestURL(url), headers: headers, payloadHash: payloadHash).text
    }

    /// The string to sign for a canonical request: algorithm, timestamp, credential scope and request hash.
    /// - Parameters:
    ///   - canonicalRequest: The output of `canonicalRequest(method:url:headers:payloadHash:)`.
    ///   - date: The signing time.
    /// - Returns: Four newline-separated lines.
    public func stringToSign(canonicalRequest: String, date: Date) -> String {
        stringToSign(canonicalRequest: canonicalRequest, date: AmzDate(date))
    }

    /// A presigned URL: `url` with the signature in its query string, valid for `expires` seconds.
    ///
    /// Only `host` is signed, so the request must carry no other headers that the server checks; for S3 the
    /// payload is `UNSIGNED-PAYLOAD`. The path in the result is encoded once, as S3 expects.
    /// - Parameters:
    ///   - method: `GET` or `PUT`.
    ///   - url: The absolute URL; any query items it has are kept and signed.
    ///   - expires: Seconds the URL stays valid, clamped to 1...604800 (S3's limit).
    ///   - date: The signing time, from which the validity runs.
    /// - Returns: The URL to hand to a client that holds no credentials.
    public func presign(method: String, url: String, expires: Int, date: Date) -> String {
        let requestURL = RequestURL(url)
        let amzDate = AmzDate(date)
        var query = requestURL.queryItems
        var added: [(String, String)] = [
            ("X-Amz-Algorithm", Self.algorithm),
            ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope(day: amzDate.day))"),
            ("X-Amz-Date", amzDate.timestamp),
            ("X-Amz-Expires", String(min(max(expires, 1), Self.maximumExpiry))),
            ("X-Amz-SignedHeaders", "host"),
        ]
        if let token = credentials.sessionToken { added.append(("X-Amz-Security-Token", token)) }
        query += added.map { (Array($0.0.utf8), Array($0.1.utf8)) }
        let canonicalQuery = Self.canonicalQueryString(query)
        let host = requestURL.hostHeader
        let payloadHash = usesS3Rules ? Self.unsignedPayload : Self.emptyPayloadHash
        let text = [
            method.uppercased(), canonicalURI(requestURL.path), canonicalQuery, "host:\(host)\n", "host",
            payloadHash,
        ].joined(separator: "\n")
        let signature = self.signature(of: stringToSign(canonicalRequest: text, date: amzDate), day: amzDate.day)
        let path = Self.canonicalURI(requestURL.path, s3Rules: true)
        return "\(requestURL.scheme)://\(requestURL.authority)\(path)?\(canonicalQuery)&X-Amz-Signature=\(signature)"
    }

    // MARK: - Signing

    /// `yyyyMMdd/region/service/aws4_request`.
    func scope(day: String) -> String { "\(day)/\(region)/\(service)/aws4_request" }

    func stringToSign(canonicalRequest: String, date: AmzDate) -> String {
        let hash = URIEncoding.hex(SHA256.hash(data: Array(canonicalRequest.utf8)))
        return [Self.algorithm, date.timestamp, scope(day: date.day), hash].joined(separator: "\n")
    }

    /// Hex HMAC of the string to sign under the derived key kSigning.
    func signature(of stringToSign: String, day: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: signingKey(day: day))
        return URIEncoding.hex(code)
    }

    /// kSigning = HMAC(HMAC(HMAC(HMAC("AWS4" + secret, day), region), service), "aws4_request").
    func signingKey(day: String) -> SymmetricKey {
        var key = SymmetricKey(data: Array("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key))
        }
        return key
    }
}

// MARK: - Description

extension SigV4Signer: CustomStringConvertible, CustomDebugStringConvertible {
    /// The access key, region and service; never the secret.
    public var description: String {
        "SigV4Signer(accessKeyID: \(credentials.accessKeyID), region: \(region), service: \(service))"
    }

    /// Same as `description`, so `debugPrint` and string interpolation in logs cannot leak the secret.
    public var debugDescription: String { description }
}
