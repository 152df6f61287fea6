import Testing

@testable import UploaderCLI

@Suite("CommandLineSettings")
struct CommandLineSettingsTests {
    @Test("long, attached, short, bundled and repeated options are read; paths and what follows -- are not")
    func reads() {
        let typed = CommandLineSettings(arguments: [
            "photos", "-p", "pets", "--config=/tmp/c.toml", "--concurrency", "3", "--retries=-1", "-rL",
            "-H", "X-A: 1", "-HX-B: 2", "-F", "a=b", "--to", "http://x/", "--to", "http://y/", "--json", "--",
            "--token", "t",
        ])
        #expect(typed.profile == "pets")
        #expect(typed.configPath == "/tmp/c.toml")
        #expect(typed.values["concurrency"] == .text("3"))
        #expect(typed.values["retries"] == .text("-1"))
        #expect(typed.values["recursive"] == .flag(true))
        #expect(typed.values["follow_symlinks"] == .flag(true))
        #expect(typed.values["headers"] == .list(["X-A: 1", "X-B: 2"]))
        #expect(typed.values["fields"] == .list(["a=b"]))
        #expect(typed.values["to"] == .text("http://y/"))
        #expect(typed.values["json"] == .flag(true))
        #expect(typed.values["token"] == nil)
        #expect(typed.values.count == 8)
    }

    @Test("--no-X switches flag X off, --X for a flag named no-X; the last of the two given wins")
    func inverses() {
        let typed = CommandLineSettings(arguments: [
            "photos", "--no-recursive", "--verify", "--no-verify", "--no-strip-metadata", "--tui", "--resume",
            "--no-http2", "--no-json", "--json", "--idempotency-key",
        ])
        #expect(typed.values["recursive"] == .flag(false))
        #expect(typed.values["verify"] == .flag(false))
        #expect(typed.values["strip_metadata"] == .flag(false))
        #expect(typed.values["no_tui"] == .flag(false))
        #expect(typed.values["no_resume"] == .flag(false))
        #expect(typed.values["no_idempotency_key"] == .flag(false))
        #expect(typed.values["http2"] == .flag(false))
        #expect(typed.values["json"] == .flag(true))
        #expect(typed.values.count == 8)
    }

    @Test("--profile and the value of an option that is not a setting are not taken for settings")
    func others() {
        let typed = CommandLineSettings(arguments: [
            "--profile", "work", "--from", "http://x/objects/", "--token", "k1",
        ])
        #expect(typed.profile == "work")
        #expect(typed.values["token"] == .text("k1"))
    }
}
