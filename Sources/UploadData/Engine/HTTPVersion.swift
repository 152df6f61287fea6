import CCurl

/// Which HTTP the engine speaks, as curl's `--http1.1` and `--http2`.
public enum HTTPVersion: String, Sendable, CaseIterable {
    /// HTTP/2 where the server offers it over TLS (ALPN), HTTP/1.1 otherwise: libcurl's own default, made explicit.
    case automatic
    /// HTTP/1.1 only.
    case http1_1 = "1.1"
    /// HTTP/2 over TLS, and an `Upgrade: h2c` offer over plain HTTP (which most servers ignore).
    case http2 = "2"

    var curlValue: Int {
        switch self {
        case .automatic: Int(CURL_HTTP_VERSION_2TLS)
        case .http1_1: Int(CURL_HTTP_VERSION_1_1)
        case .http2: Int(CURL_HTTP_VERSION_2_0)
        }
    }

    /// Whether a transfer to `url` should wait for a connection being opened to the same host rather than open
    /// another (CURLOPT_PIPEWAIT): over HTTPS that connection may turn out to multiplex, and then every transfer
    /// rides it; over HTTP/1.1 there is nothing to wait for.
    func waitsForMultiplexing(to url: String) -> Bool {
        self != .http1_1 && url.lowercased().hasPrefix("https:")
    }
}
