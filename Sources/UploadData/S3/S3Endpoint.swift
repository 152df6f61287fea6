/// Where S3 requests go: AWS's regional endpoint or a custom `--endpoint-url` (MinIO, Ceph, LocalStack…),
/// addressed virtual-hosted style (`bucket.host/key`) or path style (`host/bucket/key`).
public struct S3Endpoint: Sendable {
    /// The custom endpoint as given, or nil for AWS.
    public let endpointURL: String?
    /// The region, used for AWS's host name and by the signer.
    public let region: String
    /// Whether path-style addressing was asked for (`--path-style`).
    public let pathStyle: Bool

    private let scheme: String
    private let authority: String
    private let basePath: String

    /// Creates an endpoint.
    /// - Parameters:
    ///   - endpointURL: `http(s)://host[:port][/base]`, or nil for `https://s3.<region>.amazonaws.com`.
    ///     A URL without a scheme is taken as `https`.
    ///   - region: The region, e.g. `eu-west-1`.
    ///   - pathStyle: Use `host/bucket/key` even where `bucket.host/key` would work.
    public init(endpointURL: String?, region: String, pathStyle: Bool) {
        self.endpointURL = endpointURL
        self.region = region
        self.pathStyle = pathStyle
        if let endpointURL, !endpointURL.isEmpty {
            let parsed = RequestURL(endpointURL)
            scheme = parsed.scheme
            authority = parsed.hostHeader
            var base = parsed.path
            while base.hasSuffix("/") { base.removeLast() }
            basePath = base
        } else {
            scheme = "https"
            authority = "s3.\(region).\(region.hasPrefix("cn-") ? "amazonaws.com.cn" : "amazonaws.com")"
            basePath = ""
        }
    }

    /// The custom endpoint without trailing slashes, one spelling per server; nil for AWS.
    public var customURL: String? {
        guard var url = endpointURL, !url.isEmpty else { return nil }
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }

    /// Whether requests go over HTTPS.
    public var usesTLS: Bool { scheme == "https" }

    /// Whether requests for `bucket` use path style: when asked for, when the host is an IP address or
    /// `localhost` (no DNS for `bucket.host`), or when an HTTPS bucket name has a `.` (the wildcard TLS
    /// certificate covers one label only).
    public func usesPathStyle(bucket: String) -> Bool {
        if pathStyle { return true }
        if scheme == "https" && bucket.contains(".") { return true }
        if S3Location.bucketNameProblem(bucket) != nil { return true }
        return Self.isIPOrLocalhost(hostName)
    }

    /// The URL of an object, with its key percent-encoded for the path.
    /// - Parameters:
    ///   - bucket: The bucket name.
    ///   - key: The object key, raw; empty for bucket-level requests such as ListObjectsV2.
    ///   - query: Query items in order, raw; an item with an empty value is written as its name alone
    ///     (`?uploads`).
    /// - Returns: An absolute URL ready to send and to sign.
    public func objectURL(bucket: String, key: String, query: [(String, String)] = []) -> String {
        let encodedKey = Self.encodeKey(key)
        var url: String
        if usesPathStyle(bucket: bucket) {
            url = "\(scheme)://\(authority)\(basePath)/\(URIEncoding.encode(bucket))"
            if !key.isEmpty { url += "/" + encodedKey }
        } else {
            url = "\(scheme)://\(bucket).\(authority)\(basePath)/\(encodedKey)"
        }
        if !query.isEmpty {
            url +=
                "?"
                + query.map { name, value in
                    value.isEmpty
                        ? URIEncoding.encode(name) : URIEncoding.encode(name) + "=" + URIEncoding.encode(value)
                }.joined(separator: "&")
        }
        return url
    }

    /// RFC 3986 encoding of an object key for a URL path: `/` and unreserved characters stay, every other
    /// UTF-8 byte becomes `%XX` (so a space is `%20`, `+` is `%2B`, `=` is `%3D`).
    public static func encodeKey(_ key: String) -> String {
        URIEncoding.encode(key, keepSlash: true)
    }

    /// The host without port or IPv6 brackets.
    private var hostName: String {
        if authority.hasPrefix("["), let close = authority.firstIndex(of: "]") {
            return String(authority[authority.index(after: authority.startIndex)..<close])
        }
        return String(authority.split(separator: ":", maxSplits: 1).first ?? "")
    }

    private static func isIPOrLocalhost(_ host: String) -> Bool {
        if host == "localhost" || host.hasSuffix(".localhost") || host.contains(":") { return true }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count == 4 && labels.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }
}
