import ArgumentParser
import Foundation
import UploadData
import UploadDomain
import UploaderCLI

/// The TLS, proxy and HTTP version options `upload` and `delete` share, named as curl names them.
struct TLSOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Trust the CA certificates in this PEM file instead of the system's (default: $CURL_CA_BUNDLE, else "
                + "$SSL_CERT_FILE, when neither --cacert nor --capath is given).",
            valueName: "file"),
        completion: .file())
    var cacert: String?

    @Option(
        help: ArgumentHelp(
            "Trust the CA certificates in this folder (hashed names, as `openssl rehash` makes; default: "
                + "$SSL_CERT_DIR unless $CURL_CA_BUNDLE is set).",
            valueName: "dir"),
        completion: .directory)
    var capath: String?

    @Option(
        help: ArgumentHelp(
            "Client certificate for mutual TLS (PEM; it may hold the key too).", valueName: "file"),
        completion: .file())
    var cert: String?

    @Option(
        help: ArgumentHelp("Private key of --cert (PEM, without a pass phrase).", valueName: "file"),
        completion: .file())
    var key: String?

    @Option(
        help: ArgumentHelp(
            "Send requests through this proxy (http://, https://, socks4://, socks5://, socks5h://; "
                + "default: $https_proxy/$http_proxy; \"\" uses none). Its password is never printed.",
            valueName: "url"))
    var proxy: String?

    @Option(
        help: ArgumentHelp(
            "Hosts to reach without the proxy, comma-separated ('*' for all; default: $no_proxy).",
            valueName: "hosts"))
    var noproxy: String?

    // Two flags, not one choice, so each has its --no- form to switch a profile's off (the default: HTTP/2 where
    // the server offers it over TLS, else HTTP/1.1).
    @Flag(name: .customLong("http1.1"), inversion: .prefixedNo, help: "Use HTTP/1.1 only.")
    var http1_1 = false

    @Flag(
        inversion: .prefixedNo,
        help: "Use HTTP/2 over TLS, many files multiplexed on few connections (and offer h2c over http://).")
    var http2 = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "At most this many connections to any one host (default: no cap beyond --concurrency). Over HTTP/1.1 "
                + "the transfers beyond it wait for a connection; over HTTP/2 they share them as streams.",
            valueName: "n"))
    var maxHostConnections: Int?

    static let proxySchemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// Said at the start of a run or a delete with `--insecure`, typed or from a profile: a flag left in a profile
    /// for a test server would otherwise go on unseen against the real one.
    static let insecureNote = "--insecure: TLS certificates are not verified"

    /// Checks the options and writes them into `options`; `checkFiles` then checks the files they name.
    /// - Throws: `UsageError` naming the option and the cause, before anything is sent.
    func apply(to options: inout CurlEngine.Options, environment: [String: String]) throws {
        // No shell reads a profile's value, nor one after `=`: `~` is expanded here, as for every path setting.
        func path(_ value: String?) -> String? { value.map { ConfigLocation.expanding($0, environment: environment) } }
        let trust = TLSTrust.resolve(
            caFile: path(cacert), caPath: path(capath), insecure: options.insecure, environment: environment)
        if key != nil, cert == nil {
            throw UsageError(description: "--key needs --cert (the certificate it signs for)")
        }
        if let proxy { try Self.validate(proxy: proxy) }
        if let noproxy, noproxy.contains(where: { $0.isNewline || $0 == "\0" }) {
            throw UsageError(description: "--noproxy takes host names separated by commas")
        }
        if http1_1, http2 {
            throw UsageError(description: "use only one of --http1.1 and --http2")
        }
        if let maxHostConnections, !(1...1024).contains(maxHostConnections) {
            throw UsageError(description: "--max-host-connections: expected 1 to 1024, not \(maxHostConnections)")
        }
        options.trust = trust
        options.clientCertificate = path(cert)
        options.clientKey = path(key)
        options.proxy = proxy
        options.noProxy = noproxy
        options.proxyCredentials = ProxyCredentials.secrets(proxy: proxy, environment: environment)
        options.httpVersion = if http1_1 { .http1_1 } else if http2 { .http2 } else { .automatic }
        options.maxHostConnections = maxHostConnections ?? 0
    }

    /// Checks the CA file or folder and the client identity that `apply` wrote into `options`.
    ///
    /// Apart from `apply`: reading their contents loads OpenSSL, which waits while the start-up thread is loading
    /// libcurl (one dynamic loader lock), so an upload checks them after its scan.
    /// - Throws: `UsageError` naming the file and the cause, before anything is sent.
    static func checkFiles(of options: CurlEngine.Options) throws {
        if let caFile = options.trust.caFile, let problem = TLSFileCheck.problem(caFile: caFile) {
            throw UsageError(description: problem)
        }
        if let caPath = options.trust.caPath, let problem = TLSFileCheck.problem(caPath: caPath) {
            throw UsageError(description: problem)
        }
        if let cert = options.clientCertificate,
            let problem = TLSFileCheck.problem(certificate: cert, key: options.clientKey)
        {
            throw UsageError(description: problem)
        }
    }

    /// A proxy URL with a scheme libcurl speaks, a host and a port in range; "" (no proxy) passes.
    static func validate(proxy: String) throws {
        guard !proxy.isEmpty else { return }
        let shown = Sanitizer.displayName(Redactor.url(proxy))
        guard let schemeEnd = proxy.range(of: "://") else {
            throw UsageError(description: "--proxy: invalid URL '\(shown)': expected a scheme, as in http://host:3128")
        }
        let scheme = proxy[..<schemeEnd.lowerBound].lowercased()
        guard proxySchemes.contains(scheme) else {
            throw UsageError(
                description:
                    "--proxy: invalid URL '\(shown)': expected \(proxySchemes.sorted().joined(separator: ", ")), "
                    + "not \(scheme)")
        }
        // The host and port rules are those of any URL.
        if let problem = URLCheck.problem("http" + proxy[schemeEnd.lowerBound...]) {
            throw UsageError(description: "--proxy: invalid URL '\(shown)': \(problem)")
        }
    }
}
