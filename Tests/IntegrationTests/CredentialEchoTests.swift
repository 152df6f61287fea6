import Foundation
import Testing

/// A server that repeats the credentials it was sent ("invalid token 'abc'"), as gateways do: what the request
/// carried is redacted wherever the answer is shown or kept.
@Suite("credentials echoed by a server")
struct CredentialEchoTests {
    @Test("a token, a secret header and a URL's key echoed in a 401 appear nowhere: output, log, results, journal")
    func echoedCredentials() async throws {
        let server = try RawCapture { request in
            let body =
                "invalid credentials: \(request.header("Authorization") ?? "") / \(request.header("X-Api-Key") ?? "")"
                + " / \(request.head.first ?? "")"
            return "HTTP/1.1 401 Unauthorized\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        defer { server.stop() }
        let folder = try TestFolder("echo")
        try folder.write("a.jpg", size: 2_000, seed: 1, prefix: Magic.jpeg)
        let log = folder.path + ".log"
        let results = folder.path + ".results.json"
        let journal = folder.path + ".journal.sqlite"
        let outcome = try await ChildProcess.run(
            ChildProcess.uploaderBinary,
            [
                folder.path, "--to", server.url + "?api_key=url-key-3141", "--token", "bearer-secret-2718",
                "-H", "X-Api-Key: header-secret-1618", "--json", "--retries", "0", "--log-file", log, "--results",
                results, "--journal", journal,
            ])
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let failed = try #require(try ndjson(outcome.standardOutput).first { $0["event"] as? String == "failed" })
        let error = failed["error"] as? String ?? ""
        #expect(error.contains("invalid credentials: Bearer REDACTED / REDACTED"), "\(error)")
        let journalText = try await journalQuery(journal, "SELECT response FROM files")
        for text in [
            outcome.standardOutput, outcome.standardError, try String(contentsOfFile: log, encoding: .utf8),
            try String(contentsOfFile: results, encoding: .utf8), journalText.joined(separator: "\n"),
        ] {
            for secret in ["bearer-secret-2718", "header-secret-1618", "url-key-3141"] {
                #expect(!text.contains(secret), "\(secret) in: \(text)")
            }
        }
        // The server did get them: they were redacted from its answer, not left out of the request.
        #expect(server.requests.first?.header("Authorization") == "Bearer bearer-secret-2718")
    }

    /// Everything a run leaves for a reader: its standard output and error, its log and its journal's `history`.
    func everythingShown(
        _ arguments: [String], environment: [String: String] = [:], in folder: TestFolder
    ) async throws -> (outcome: ChildProcess.Outcome, texts: [String]) {
        let log = folder.path + ".log"
        let journal = folder.path + ".journal.sqlite"
        let outcome = try await ChildProcess.run(
            ChildProcess.uploaderBinary,
            [folder.path, "--json", "--retries", "0", "--log-file", log, "--journal", journal] + arguments,
            environment: environment)
        let history = try await ChildProcess.run(ChildProcess.uploaderBinary, ["history", "--journal", journal])
        let journalText = try await journalQuery(
            journal, "SELECT coalesce(response, '') || ' ' || coalesce(error, '') FROM files")
        return (
            outcome,
            [
                outcome.standardOutput, outcome.standardError, try String(contentsOfFile: log, encoding: .utf8),
                journalText.joined(separator: "\n"), history.standardOutput + history.standardError,
            ]
        )
    }

    @Test(
        "a proxy's password, user:password and Basic credentials echoed by the proxy appear nowhere",
        arguments: [
            (["--proxy", "http://pu:PROXYPASS@127.0.0.1:PORT"], [:]),
            ([], ["http_proxy": "http://pu:PROXYPASS@127.0.0.1:PORT"]),
            ([], ["ALL_PROXY": "pu:PROXYPASS@127.0.0.1:PORT"]),
        ] as [([String], [String: String])])
    func echoedProxyCredentials(arguments: [String], environment: [String: String]) async throws {
        let proxy = try RawCapture { request in
            let body =
                "proxy refused \(request.header("Proxy-Authorization") ?? "nothing") for pu:PROXYPASS (PROXYPASS)"
            return "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        defer { proxy.stop() }
        let folder = try TestFolder("echo-proxy")
        try folder.write("a.jpg", size: 2_000, seed: 1, prefix: Magic.jpeg)
        let port = String(proxy.port)
        let (outcome, texts) = try await everythingShown(
            ["--to", "http://uploads.invalid/up"] + arguments.map { $0.replacingOccurrences(of: "PORT", with: port) },
            environment: TLSTrustTests.bare.merging(
                environment.mapValues {
                    $0.replacingOccurrences(of: "PORT", with: port)
                }
            ) { $1 },
            in: folder)
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let failed = try #require(try ndjson(outcome.standardOutput).first { $0["event"] as? String == "failed" })
        let error = failed["error"] as? String ?? ""
        #expect(error.contains("proxy refused Basic REDACTED for REDACTED (REDACTED)"), "\(error)")
        for text in texts {
            for secret in ["PROXYPASS", "cHU6UFJPWFlQQVNT"] {
                #expect(!text.contains(secret), "\(secret) in: \(text)")
            }
        }
        // The proxy did get them: they were redacted from its answer, not left out of the request.
        #expect(proxy.requests.first?.header("Proxy-Authorization") == "Basic cHU6UFJPWFlQQVNT")
    }

    @Test("form fields named as secrets (-F api_key=…, -F password=…) echoed in an answer appear nowhere")
    func echoedFormFields() async throws {
        let server = try RawCapture { request in
            // The form's values, in order: the fields, then the file's bytes.
            let values = String(decoding: request.body, as: UTF8.self).components(separatedBy: "\r\n\r\n")
                .dropFirst().prefix(3).map { $0.components(separatedBy: "\r\n").first ?? "" }
            let body = "refused: " + values.joined(separator: " / ")
            return "HTTP/1.1 403 Forbidden\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        defer { server.stop() }
        let folder = try TestFolder("echo-form")
        try folder.write("a.jpg", size: 2_000, seed: 1, prefix: Magic.jpeg)
        let (outcome, texts) = try await everythingShown(
            [
                "--to", server.url, "-F", "api_key=FORMSECRET-7777", "-F", "password=FORMPASS-5551", "-F",
                "album=pets-album",
            ], in: folder)
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let failed = try #require(try ndjson(outcome.standardOutput).first { $0["event"] as? String == "failed" })
        let error = failed["error"] as? String ?? ""
        #expect(error.contains("refused: REDACTED / REDACTED / pets-album"), "\(error)")
        for text in texts {
            for secret in ["FORMSECRET-7777", "FORMPASS-5551"] {
                #expect(!text.contains(secret), "\(secret) in: \(text)")
            }
        }
    }

    @Test("a token and a signature a server repeats JSON-escaped (\\/ as PHP writes it) appear nowhere")
    func echoedEscapedCredentials() async throws {
        let server = try RawCapture { request in
            // What PHP's json_encode makes of the token and of the query's signature, decoded.
            let token = (request.header("Authorization") ?? "").replacingOccurrences(of: "/", with: "\\/")
            let body = #"{"error":"bad \#(token), sig QSIG\/PART+TWO="}"#
            return "HTTP/1.1 401 Unauthorized\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        }
        defer { server.stop() }
        let folder = try TestFolder("echo-escaped")
        try folder.write("a.jpg", size: 2_000, seed: 1, prefix: Magic.jpeg)
        let (outcome, texts) = try await everythingShown(
            ["--to", server.url + "?sig=QSIG%2FPART%2BTWO%3D", "--token", "TOK/PART+TWO="], in: folder)
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let failed = try #require(try ndjson(outcome.standardOutput).first { $0["event"] as? String == "failed" })
        let error = failed["error"] as? String ?? ""
        #expect(error.contains(#"bad Bearer REDACTED, sig REDACTED"#), "\(error)")
        for text in texts {
            #expect(!text.contains("PART+TWO"), "in: \(text)")
        }
    }

    @Test("a failing --token-command's error output is redacted of the refused token and the request's secrets")
    func tokenCommandStderr() async throws {
        let server = try RawCapture { _ in "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n" }
        defer { server.stop() }
        let folder = try TestFolder("echo-token-command")
        try folder.write("a.jpg", size: 2_000, seed: 1, prefix: Magic.jpeg)
        let command = "echo 'refresh rejected for Bearer WRONGTOK_JJJ000 (X-Api-Key HDRSECRET-3)' >&2; exit 3"
        let (outcome, texts) = try await everythingShown(
            [
                "--to", server.url, "--token", "WRONGTOK_JJJ000", "--token-command", command, "-H",
                "X-Api-Key: HDRSECRET-3",
            ], in: folder)
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let failed = try #require(try ndjson(outcome.standardOutput).first { $0["event"] as? String == "failed" })
        let error = failed["error"] as? String ?? ""
        #expect(
            error.contains(
                "the token command failed (exit 3): refresh rejected for Bearer REDACTED (X-Api-Key REDACTED)"),
            "\(error)")
        for text in texts {
            for secret in ["WRONGTOK_JJJ000", "HDRSECRET-3"] {
                #expect(!text.contains(secret), "\(secret) in: \(text)")
            }
        }
    }
}
