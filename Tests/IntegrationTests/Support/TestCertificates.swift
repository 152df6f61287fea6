import Foundation

/// A CA, a server certificate for 127.0.0.1 and a client certificate, both signed by the CA, made with the
/// `openssl` tool (a test-only dependency; `make deps` installs it).
struct TestCertificates {
    let folder: TestFolder
    var caCertificate: String { folder.path + "/ca.pem" }
    var serverCertificate: String { folder.path + "/server.pem" }
    var serverKey: String { folder.path + "/server.key" }
    var clientCertificate: String { folder.path + "/client.pem" }
    var clientKey: String { folder.path + "/client.key" }
    /// A key that belongs to no certificate here.
    var otherKey: String { folder.path + "/other.key" }
    /// The CA in a folder with the hashed name OpenSSL looks up (`openssl rehash`), for `--capath`.
    var caFolder: String { folder.path + "/cas" }

    /// Makes every file with EC P-256 keys (fast), valid for two days.
    static func make() async throws -> TestCertificates {
        let folder = try TestFolder("certificates")
        let d = folder.path
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
        try "subjectAltName=IP:127.0.0.1\n".write(toFile: d + "/server.ext", atomically: true, encoding: .utf8)
        try "extendedKeyUsage=clientAuth\n".write(toFile: d + "/client.ext", atomically: true, encoding: .utf8)
        try await openssl(
            ["req", "-x509"] + newKey + [
                "-keyout", d + "/ca.key", "-out", d + "/ca.pem", "-days", "2",
                "-subj", "/CN=uploader-tui test CA",
            ])
        for (name, serial) in [("server", "2"), ("client", "3")] {
            try await openssl(
                ["req"] + newKey + [
                    "-keyout", "\(d)/\(name).key", "-out", "\(d)/\(name).csr",
                    "-subj", "/CN=\(name == "server" ? "127.0.0.1" : "uploader-tui test client")",
                ])
            try await openssl([
                "x509", "-req", "-in", "\(d)/\(name).csr", "-CA", d + "/ca.pem", "-CAkey",
                d + "/ca.key", "-set_serial", serial, "-days", "2", "-extfile", "\(d)/\(name).ext",
                "-out", "\(d)/\(name).pem",
            ])
        }
        try await openssl([
            "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out",
            d + "/other.key",
        ])
        try FileManager.default.createDirectory(atPath: d + "/cas", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: d + "/ca.pem", toPath: d + "/cas/ca.pem")
        try await openssl(["rehash", d + "/cas"])
        return TestCertificates(folder: folder)
    }

    private static func openssl(_ arguments: [String]) async throws {
        let outcome = try await ChildProcess.run("/usr/bin/env", ["openssl"] + arguments)
        guard outcome.status == 0 else {
            throw TestFailure(
                description: "openssl \(arguments.first ?? "") failed (\(outcome.status); make deps installs "
                    + "openssl): \(outcome.standardError)")
        }
    }
}
