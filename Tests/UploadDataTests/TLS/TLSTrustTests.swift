import Testing
import UploadData

/// curl's tool rules for CA certificates from the environment, repeated by `TLSTrust.resolve`.
@Suite("TLSTrust")
struct TLSTrustTests {
    typealias Source = TLSTrust.Source

    let everything = [
        "CURL_CA_BUNDLE": "/bundle.pem", "SSL_CERT_FILE": "/file.pem", "SSL_CERT_DIR": "/certs",
    ]

    @Test("an option wins, and then no variable is read, even for the other option")
    func optionsWin() {
        #expect(
            TLSTrust.resolve(caFile: "/ca.pem", caPath: nil, insecure: false, environment: everything)
                == TLSTrust(caFile: Source(path: "/ca.pem", origin: "--cacert")))
        #expect(
            TLSTrust.resolve(caFile: nil, caPath: "/dir", insecure: false, environment: everything)
                == TLSTrust(caPath: Source(path: "/dir", origin: "--capath")))
    }

    @Test("CURL_CA_BUNDLE alone when set; else SSL_CERT_FILE and SSL_CERT_DIR together")
    func variables() {
        #expect(
            TLSTrust.resolve(caFile: nil, caPath: nil, insecure: false, environment: everything)
                == TLSTrust(caFile: Source(path: "/bundle.pem", origin: "CURL_CA_BUNDLE")))
        var environment = everything
        environment["CURL_CA_BUNDLE"] = nil
        #expect(
            TLSTrust.resolve(caFile: nil, caPath: nil, insecure: false, environment: environment)
                == TLSTrust(
                    caFile: Source(path: "/file.pem", origin: "SSL_CERT_FILE"),
                    caPath: Source(path: "/certs", origin: "SSL_CERT_DIR")))
        environment["SSL_CERT_FILE"] = nil
        #expect(
            TLSTrust.resolve(caFile: nil, caPath: nil, insecure: false, environment: environment)
                == TLSTrust(caPath: Source(path: "/certs", origin: "SSL_CERT_DIR")))
    }

    @Test("empty variables count as unset; with none, libcurl keeps its default")
    func emptyVariables() {
        let empty = ["CURL_CA_BUNDLE": "", "SSL_CERT_FILE": "/file.pem", "SSL_CERT_DIR": ""]
        #expect(
            TLSTrust.resolve(caFile: nil, caPath: nil, insecure: false, environment: empty)
                == TLSTrust(caFile: Source(path: "/file.pem", origin: "SSL_CERT_FILE")))
        #expect(TLSTrust.resolve(caFile: nil, caPath: nil, insecure: false, environment: [:]) == TLSTrust())
    }

    @Test("--insecure reads no variable (nothing is verified), as curl")
    func insecure() {
        #expect(TLSTrust.resolve(caFile: nil, caPath: nil, insecure: true, environment: everything) == TLSTrust())
    }
}
