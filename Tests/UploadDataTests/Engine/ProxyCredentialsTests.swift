import Testing

@testable import UploadData

/// The proxy credentials an answer is redacted of: `--proxy`'s, else those of the variables libcurl reads.
@Suite("ProxyCredentials")
struct ProxyCredentialsTests {
    /// base64 of `pu:PROXYPASS`, as libcurl sends it in `Proxy-Authorization: Basic …`.
    let basic = "cHU6UFJPWFlQQVNT"

    @Test("--proxy: its password, user:password and their Basic base64")
    func fromOption() {
        let secrets = ProxyCredentials.secrets(
            proxy: "http://pu:PROXYPASS@127.0.0.1:3128", environment: ["http_proxy": "http://eu:ENVPASS@h:1"])
        #expect(Set(secrets).isSuperset(of: ["PROXYPASS", "pu:PROXYPASS", basic]), "\(secrets)")
        // libcurl reads no variable once --proxy is given.
        #expect(!secrets.contains("ENVPASS"), "\(secrets)")
        #expect(ProxyCredentials.secrets(proxy: "", environment: ["http_proxy": "http://eu:ENVPASS@h:1"]).isEmpty)
        #expect(ProxyCredentials.secrets(proxy: "http://127.0.0.1:3128", environment: [:]).isEmpty)
    }

    @Test("the variables libcurl reads, with or without a scheme and percent-encoded; not HTTP_PROXY")
    func fromEnvironment() {
        let environment = [
            "http_proxy": "http://pu:PROXYPASS@127.0.0.1:1", "https_proxy": "sa:SMALLPASS@h:2",
            "HTTPS_PROXY": "http://sb:BIGPASS@h:3", "all_proxy": "socks5://sc:ALLPASS@h:4",
            "ALL_PROXY": "socks5h://sd:P%40SS+1@h:5", "HTTP_PROXY": "http://cgi:CGIPASS@h:6",
        ]
        let secrets = ProxyCredentials.secrets(proxy: nil, environment: environment)
        for secret in ["PROXYPASS", basic, "SMALLPASS", "sa:SMALLPASS", "BIGPASS", "ALLPASS", "P%40SS+1", "P@SS+1"] {
            #expect(secrets.contains(secret), "\(secret) not in \(secrets)")
        }
        // The Basic credentials libcurl sends for it: `sd:P@SS+1`, the `+` of user info being no space.
        #expect(secrets.contains("c2Q6UEBTUysx"), "\(secrets)")
        #expect(!secrets.contains { $0.contains("CGIPASS") }, "\(secrets)")
    }
}
