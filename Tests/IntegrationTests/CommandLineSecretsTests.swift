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
        try await expectRefused(["-H", header], message: "\(shown): not a header; expected 'Name: value' on one line")
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
                == "uploader-tui: config.toml:3: profile 'p2': -H 'Authorization: ****': not a header; expected "
                + "'Name: value' on one line\n",
            "\(outcome.standardError)")
    }
}
