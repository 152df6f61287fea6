import Foundation
import Testing

/// `~` in path settings, from a profile and after `=` on the command line, where no shell expands it.
@Suite("~ in path settings is $HOME", .serialized)
struct HomePathSettingsTests {
    let binary = ChildProcess.uploaderBinary

    @Test("a profile's ~/ paths (log_file, results, journal, capath) are under $HOME, and so is --config=~/…")
    func profilePaths() async throws {
        let server = try await ServerFixture.start()
        // Not the passwd entry's home, which `expandingTildeInPath` read.
        let home = try TestFolder("home")
        for folder in ["logs", "cas"] {
            try FileManager.default.createDirectory(atPath: home.path + "/" + folder, withIntermediateDirectories: true)
        }
        let config = """
            [profile.home]
            to = "\(server.url("/datasets/home/images"))"
            log_file = "~/logs/up.log"
            results = "~/results.json"
            journal = "~/journal.sqlite"
            capath = "~/cas"
            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: home.path + "/uploader.toml"))
        let folder = try TestFolder()
        try folder.write("a.jpg", size: 2_000, seed: 1, prefix: Magic.jpeg)

        let outcome = try await ChildProcess.run(
            binary, [folder.path, "--config", home.path + "/uploader.toml", "-p", "home", "--no-tui"],
            environment: ["HOME": home.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        for file in ["logs/up.log", "results.json", "journal.sqlite"] {
            #expect(FileManager.default.fileExists(atPath: home.path + "/" + file), "\(file)")
        }
        let shown = try await ChildProcess.run(
            binary, ["config", "show", "--config=~/uploader.toml", "-p", "home"], environment: ["HOME": home.path])
        #expect(shown.status == 0, "\(shown.standardError)")
        #expect(shown.standardOutput.hasPrefix("file: ~/uploader.toml  profile: home\n"), "\(shown.standardOutput)")
        await server.stop()
    }

    @Test("--log-file=~/…, --results=~/… and --journal=~/… are under $HOME")
    func commandLinePaths() async throws {
        let server = try await ServerFixture.start()
        let home = try TestFolder("home")
        let folder = try TestFolder()
        try folder.write("b.jpg", size: 2_000, seed: 2, prefix: Magic.jpeg)
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/flags/images"), "--no-tui", "--log-file=~/up.log",
                "--results=~/results.json", "--journal=~/journal.sqlite",
            ],
            environment: ["HOME": home.path])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        for file in ["up.log", "results.json", "journal.sqlite"] {
            #expect(FileManager.default.fileExists(atPath: home.path + "/" + file), "\(file)")
        }
        await server.stop()
    }
}
