import Foundation
import Testing

/// Secrets the user typed as arguments (`-H 'Authorization: …'`, `-F password=…`) are never quoted back: not by a
/// usage error, not by `config show`, not in the process's command line that every user can read.
@Suite("secrets in arguments")
struct CommandLineSecretsTests {
    @Test(
        "a refused -H names the header and masks its value",
        arguments: [
            ("Authorization: Bearer HDRSECRET\r", "-H 'Authorization: ****'"),
            ("Cookie: sid=HDRSECRET\r", "-H 'Cookie: ****'"),
            ("X-Api-Key: HDRSECRET\n", "-H 'X-Api-Key: ****'"),
            ("Authorization Bearer HDRSECRET", "-H 'Authorization ****'"),
            ("Bearer HDRSECRET", "-H '****'"),
            ("X-Team: pets\r\nAuthorization: Bearer HDRSECRET", "-H 'X-Team: pets\\x0D\\x0AAuthorization: ****'"),
        ])
    func refusedHeader(header: String, shown: String) async throws {
        try await expectRefused(["-H", header], message: "\(shown): not a header; " + Self.rule)
    }

    static let rule = "expected 'Name: value' on one line, the name of letters, digits and !#$%&'*+-.^_`|~ only"

    @Test("a header name a server cannot take is refused with what a name may hold, masked whole")
    func refusedHeaderName() async throws {
        try await expectRefused(
            ["-H", "Cache-Control: no-cache", "-H", "X-Amz-Meta-\u{DC}n\u{EF}: value"],
            message: "-H '****': not a header; " + Self.rule)
    }

    @Test("a profile's refused header is masked too, with the file's line")
    func refusedProfileHeader() async throws {
        let home = try ProfileTests.ConfigHome(
            """
            [profile.p2]
            to = "http://127.0.0.1:9/x"
            headers = ["Authorization: Bearer CFGBAD\\r"]
            """)
        let folder = try TestFolder("profile-header")
        try folder.write("a.bin", size: 10, seed: 1)
        let outcome = try await ChildProcess.run(
            ChildProcess.uploaderBinary, [folder.path, "-p", "p2", "--no-tui"], environment: home.environment)
        #expect(outcome.status == 2)
        #expect(
            outcome.standardError
                == "uploader-tui: \(home.file):3: profile 'p2': -H 'Authorization: ****': not a header; " + Self.rule
                + "\n",
            "\(outcome.standardError)")
    }

    @Test("-F fields named as secrets are masked in config show and in the process's own command line")
    func secretFields() async throws {
        let show = try await ChildProcess.run(
            ChildProcess.uploaderBinary,
            [
                "config", "show", "--to", "http://127.0.0.1:9/x", "-F", "api_key=FORMSECRET", "-F",
                "password=FORMPASS", "-F", "album=pets",
            ])
        #expect(show.status == 0, "\(show.standardError)")
        let lines = show.standardOutput.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("fields api_key=****, password=****, album=pets flag"), "\(show.standardOutput)")

        let server = try RawCapture()
        defer { server.stop() }
        let folder = try TestFolder("cmdline-form")
        try folder.write("a.png", size: 200_000, seed: 95, prefix: Magic.png)
        let child = try ChildProcess.start(
            ChildProcess.uploaderBinary,
            [
                folder.path, "--to", server.url, "-F", "api_key=FORMSECRET", "-F", "password=FORMPASS", "-F",
                "album=pets", "--limit-rate", "1K", "--json", "--no-resume",
            ])
        try await waitUntil("the first file's start") { child.standardOutputSoFar.contains("\"started\"") }
        let cmdline = String(
            decoding: FileManager.default.contents(atPath: "/proc/\(child.pid)/cmdline") ?? Data(), as: UTF8.self)
        child.signal(SIGKILL)
        _ = await child.wait()
        #expect(!cmdline.contains("FORMSECRET") && !cmdline.contains("FORMPASS"), "\(cmdline)")
        #expect(cmdline.contains("api_key=**********") && cmdline.contains("password=********"), "\(cmdline)")
        #expect(cmdline.contains("album=pets"), "\(cmdline)")
    }

    @Test("X-Authorization, X-Signature… are masked in config show and the command line; Cache-Control is not")
    func widerSecretHeaders() async throws {
        let names = ["X-Authorization", "X-Signature", "X-Request-Sig", "X-Jwt-Assertion", "X-Pass"]
        let headers = names.flatMap { ["-H", "\($0): Bearer HDRSECRET"] } + ["-H", "Cache-Control: max-age=60"]
        let show = try await ChildProcess.run(
            ChildProcess.uploaderBinary, ["config", "show", "--to", "http://127.0.0.1:9/x"] + headers)
        #expect(show.status == 0, "\(show.standardError)")
        #expect(!show.standardOutput.contains("HDRSECRET"), "\(show.standardOutput)")
        for name in names { #expect(show.standardOutput.contains("\(name): ****"), "\(show.standardOutput)") }
        #expect(show.standardOutput.contains("Cache-Control: max-age=60"), "\(show.standardOutput)")

        let server = try RawCapture()
        defer { server.stop() }
        let folder = try TestFolder("cmdline-headers")
        try folder.write("a.png", size: 200_000, seed: 95, prefix: Magic.png)
        let child = try ChildProcess.start(
            ChildProcess.uploaderBinary,
            [folder.path, "--to", server.url, "--limit-rate", "50K", "--json", "--no-resume"] + headers)
        try await waitUntil("the first file's start") { child.standardOutputSoFar.contains("\"started\"") }
        let cmdline = String(
            decoding: FileManager.default.contents(atPath: "/proc/\(child.pid)/cmdline") ?? Data(), as: UTF8.self)
        child.signal(SIGKILL)
        _ = await child.wait()
        #expect(!cmdline.contains("HDRSECRET"), "\(cmdline)")
        #expect(cmdline.contains("Cache-Control: max-age=60"), "\(cmdline)")
    }
}
