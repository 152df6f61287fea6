import UploadDomain

extension CurlEngine {
    /// Headers libcurl sets from the request itself, which a user's `-H` cannot: in place of libcurl's, a
    /// `Content-Length` or `Transfer-Encoding` that does not match the body cuts it where the server reads the rest
    /// as the next request on the kept-alive connection (the next file fails); `Host` and `Connection` belong to the
    /// URL and to the connection libcurl manages. `Content-Type` and `Expect` may be replaced (see
    /// `CurlTransfer.merged`).
    public static let framingHeaders: Set<String> = ["content-length", "transfer-encoding", "host", "connection"]

    /// The name of the first of `headers` libcurl frames the request with, if any.
    public static func framingHeader(in headers: [HTTPHeader]) -> String? {
        headers.first { framingHeaders.contains($0.name.lowercased()) }?.name
    }
}
