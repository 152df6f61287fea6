/// The CA certificates a run trusts, and where they were named: the `--cacert`/`--capath` options, else the
/// variables curl's own tool reads.
///
/// libcurl's easy API reads none of these variables itself; curl's command-line tool does, before it sets
/// `CURLOPT_CAINFO`/`CURLOPT_CAPATH`. This repeats its rules so the two behave alike.
public struct TLSTrust: Sendable, Equatable {
    /// A file or folder of CA certificates and what named it (`--cacert`, `SSL_CERT_FILE`, …), for messages.
    public struct Source: Sendable, Equatable {
        public var path: String
        public var origin: String

        /// Creates a source.
        public init(path: String, origin: String) {
            self.path = path
            self.origin = origin
        }
    }

    /// A PEM bundle of CA certificates (`CURLOPT_CAINFO`); nil keeps libcurl's built-in default.
    public var caFile: Source?
    /// A folder of hashed CA certificates (`CURLOPT_CAPATH`); nil keeps libcurl's built-in default.
    public var caPath: Source?

    /// Creates a trust setting.
    public init(caFile: Source? = nil, caPath: Source? = nil) {
        self.caFile = caFile
        self.caPath = caPath
    }

    /// Resolves the options against the environment, as curl's tool does.
    ///
    /// Either option given: only the options count. Neither: `CURL_CA_BUNDLE` alone if set; otherwise
    /// `SSL_CERT_DIR` and `SSL_CERT_FILE` both. With `insecure` nothing is read from the environment (curl's
    /// rule too: nothing is verified). An empty variable counts as unset.
    /// - Parameters:
    ///   - caFile: `--cacert`.
    ///   - caPath: `--capath`.
    ///   - insecure: `--insecure`.
    ///   - environment: The process environment.
    public static func resolve(
        caFile: String?, caPath: String?, insecure: Bool, environment: [String: String]
    ) -> TLSTrust {
        if caFile != nil || caPath != nil || insecure {
            return TLSTrust(
                caFile: caFile.map { Source(path: $0, origin: "--cacert") },
                caPath: caPath.map { Source(path: $0, origin: "--capath") })
        }
        func variable(_ name: String) -> Source? {
            environment[name].flatMap { $0.isEmpty ? nil : Source(path: $0, origin: name) }
        }
        if let bundle = variable("CURL_CA_BUNDLE") { return TLSTrust(caFile: bundle) }
        return TLSTrust(caFile: variable("SSL_CERT_FILE"), caPath: variable("SSL_CERT_DIR"))
    }
}
