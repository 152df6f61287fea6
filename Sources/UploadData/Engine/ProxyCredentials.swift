import UploadDomain

/// The credentials of the proxy requests may go through, for redaction: a proxy that refuses or relays a request
/// may repeat its `Proxy-Authorization` (or the password) in the answer, as a server may repeat a token.
public enum ProxyCredentials {
    /// The variables libcurl takes a proxy from when `--proxy` is not given. `http_proxy` only in lower case, as
    /// libcurl reads it: in a CGI program, `HTTP_PROXY` is a request's `Proxy:` header.
    static let variables = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// The secrets of `--proxy`, else of each proxy variable set: the password, `user:password` and its Basic
    /// base64 (what libcurl sends), as written and percent-decoded; each at least 4 characters, as a request's.
    /// - Parameters:
    ///   - proxy: `--proxy`; "" turns every proxy off, variables included.
    ///   - environment: The process's environment, which libcurl reads the variables from.
    public static func secrets(proxy: String?, environment: [String: String]) -> [String] {
        let urls = proxy.map { [$0] } ?? variables.compactMap { environment[$0] }
        var found: [String] = []
        for url in urls where !url.isEmpty {
            // libcurl takes a proxy without a scheme as http://.
            let whole = url.contains("://") ? url : "http://" + url
            if let userInfo = Redactor.userInfo(of: whole) {
                found += [userInfo, Redactor.percentDecoded(userInfo, plusIsSpace: false)]
            }
            found += Redactor.secrets(in: whole)
        }
        var seen = Set<String>()
        return found.filter { $0.count >= 4 && seen.insert($0).inserted }
    }
}
