import Foundation
import Testing

/// Issue 17: `make install` puts the binaries, the man pages and the shell completions under PREFIX. The recipe is
/// `install-files`, run here on the build under test (a release build would take the suite ten minutes more).
@Suite("make install")
struct InstallTests {
    @Test("binaries, man pages that man renders without a warning, and bash, zsh and fish completions")
    func installsEverything() async throws {
        let prefix = try TestFolder("prefix")
        let binaries = (ChildProcess.uploaderBinary as NSString).deletingLastPathComponent
        let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
        // swift build would wait for this test's own build folder: make test builds generate-manual beforehand.
        try #require(
            FileManager.default.isExecutableFile(atPath: binaries + "/generate-manual"),
            "generate-manual is not built: run make test, or swift build --product generate-manual first")
        let install = try await ChildProcess.run(
            "/usr/bin/make",
            [
                "-C", checkout, "--no-print-directory", "install-files", "PREFIX=\(prefix.path)",
                "INSTALL_FROM=\(binaries)", "BIN=\(binaries)",
            ])
        #expect(install.status == 0, "\(install.standardError)")

        let version = try await ChildProcess.run(prefix.path + "/bin/uploader-tui", ["--version"])
        #expect(version.status == 0 && !version.standardOutput.isEmpty)
        #expect(FileManager.default.isExecutableFile(atPath: prefix.path + "/bin/uploader-server"))

        for tool in ["uploader-tui", "uploader-server"] {
            let page = try await ChildProcess.run(
                "/usr/bin/man", ["-l", "-P", "cat", prefix.path + "/share/man/man1/\(tool).1"],
                environment: ["MANWIDTH": "100"])
            #expect(page.status == 0, "\(page.standardError)")
            #expect(page.standardError.isEmpty, "man warns: \(page.standardError)")
            #expect(page.standardOutput.contains("SYNOPSIS"))
        }
        let manual = try await ChildProcess.run(
            "/usr/bin/man", ["-l", "-P", "cat", prefix.path + "/share/man/man1/uploader-tui.1"])
        #expect(manual.standardOutput.contains("--include") && manual.standardOutput.contains("--strip-metadata"))

        let bash = prefix.path + "/share/bash-completion/completions/uploader-tui"
        let syntax = try await ChildProcess.run("/bin/bash", ["-n", bash])
        #expect(syntax.status == 0, "\(syntax.standardError)")
        let completions = try String(contentsOfFile: bash, encoding: .utf8)
        #expect(completions.contains("--cacert") && completions.contains("--max-dimension"))
        let zsh = try String(contentsOfFile: prefix.path + "/share/zsh/site-functions/_uploader-tui", encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef uploader-tui"))
        let fish = try String(
            contentsOfFile: prefix.path + "/share/fish/vendor_completions.d/uploader-tui.fish", encoding: .utf8)
        #expect(fish.contains("complete -c 'uploader-tui'"))
    }
}
