import Testing

@testable import UploaderCLI

@Suite("EffectiveSettings: flag > profile > [defaults] > built-in")
struct EffectiveSettingsTests {
    let file = try! ConfigFile(text: ConfigFileTests.sample, shownPath: "~/.config/uploader-tui/config.toml")

    func settings(_ arguments: [String], profile: String? = "pets") throws -> EffectiveSettings {
        try EffectiveSettings(file: file, profile: profile, commandLine: CommandLineSettings(arguments: arguments))
    }

    func origin(_ settings: EffectiveSettings, _ key: String) -> String? {
        settings.settings.first { $0.key.name == key }?.origin.description
    }

    @Test("the profile's settings become arguments; where a profile and [defaults] both set a key the profile wins")
    func profileOverDefaults() throws {
        let effective = try settings(["photos"])
        #expect(
            effective.fileArguments == [
                "--to=http://127.0.0.1:8080/datasets/pets/images", "--batch=10", "-F", "album=pets",
                "-H", "X-Team: pets", "-H", "Authorization: Bearer abc", "--concurrency=2", "--retries=3",
                "--stall-timeout=12.5", "--recursive",
            ])
        #expect(origin(effective, "retries") == "defaults (config.toml:3)")
        #expect(origin(effective, "concurrency") == "profile pets (config.toml:8)")
        #expect(origin(effective, "headers") == "profile pets (config.toml:12)")
        // The profile's headers replace [defaults]' headers whole.
        #expect(!effective.fileArguments.contains("X-Client: uploader"))
    }

    @Test("resume = false gives --no-resume; a profile's resume = true drops [defaults]' no_resume")
    func inverseFlags() throws {
        let file = try ConfigFile(
            text: "[defaults]\nresume = false\ntui = false\n[profile.pets]\nresume = true\n", shownPath: "c.toml")
        let plain = try EffectiveSettings(file: file, profile: nil, commandLine: CommandLineSettings(arguments: []))
        #expect(plain.fileArguments == ["--no-resume", "--no-tui"])
        let pets = try EffectiveSettings(file: file, profile: "pets", commandLine: CommandLineSettings(arguments: []))
        #expect(pets.fileArguments == ["--no-tui"])
        #expect(pets.settings.first { $0.key.name == "no_resume" }?.shownValue == "false")
    }

    @Test("without a profile only [defaults] applies")
    func defaultsOnly() throws {
        let effective = try settings([], profile: nil)
        #expect(effective.fileArguments == ["-H", "X-Client: uploader", "--retries=3"])
    }

    @Test("a flag overrides the file, and its setting leaves the file's arguments")
    func flagWins() throws {
        let effective = try settings(["photos", "--concurrency", "6", "--retries=1", "-r"])
        #expect(!effective.fileArguments.contains { $0.hasPrefix("--concurrency") || $0.hasPrefix("--retries") })
        #expect(!effective.fileArguments.contains("--recursive"))
        #expect(origin(effective, "concurrency") == "flag")
        #expect(effective.settings.first { $0.key.name == "concurrency" }?.value == .text("6"))
        #expect(origin(effective, "retries") == "flag")
        #expect(origin(effective, "recursive") == "flag")
    }

    @Test("a flag switched off on the command line beats the file's true: shown false, its option left out")
    func flagSwitchedOff() throws {
        let file = try ConfigFile(
            text: "[defaults]\nrecursive = true\nverify = true\nno_tui = true\nhttp2 = true\n",
            shownPath: "~/.config/uploader-tui/config.toml")
        func effective(_ arguments: [String]) throws -> EffectiveSettings {
            try EffectiveSettings(file: file, profile: nil, commandLine: CommandLineSettings(arguments: arguments))
        }
        #expect(try effective([]).fileArguments == ["--recursive", "--no-tui", "--verify", "--http2"])
        let off = try effective(["--no-recursive", "--no-verify", "--tui", "--no-http2"])
        #expect(off.fileArguments.isEmpty)
        for key in ["recursive", "verify", "no_tui", "http2"] {
            let setting = try #require(off.settings.first { $0.key.name == key })
            #expect(setting.value == .flag(false), "\(key)")
            #expect(setting.origin == .flag, "\(key)")
            #expect(setting.shownValue == "false", "\(key)")
        }
        // --http1.1 replaces the file's --http2, as --put replaces its --to; --no-http1.1 picks nothing.
        #expect(try effective(["--http1.1"]).fileArguments == ["--recursive", "--no-tui", "--verify"])
        #expect(try effective(["--no-http1.1"]).fileArguments.contains("--http2"))
    }

    @Test("headers add up; a header the command line names replaces the file's of that name")
    func headersAdd() throws {
        let effective = try settings(["-H", "x-team: cats", "-H", "X-Extra: 1"])
        #expect(effective.fileArguments.contains("Authorization: Bearer abc"))
        #expect(!effective.fileArguments.contains("X-Team: pets"))
        let headers = try #require(effective.settings.first { $0.key.name == "headers" })
        #expect(headers.value == .list(["Authorization: Bearer abc", "x-team: cats", "X-Extra: 1"]))
        #expect(headers.origin.description == "profile pets (config.toml:12) + flag")
        #expect(headers.shownValue == "Authorization: ****, x-team: cats, X-Extra: 1")
    }

    @Test("a destination on the command line replaces the profile's, whichever kind it is")
    func destination() throws {
        let effective = try settings(["--put", "http://127.0.0.1:9/files/"])
        #expect(!effective.fileArguments.contains { $0.hasPrefix("--to") })
        #expect(origin(effective, "put") == "flag")
        #expect(origin(effective, "to") == nil)
    }

    @Test("a profile's destination replaces [defaults]' whichever kind it is; so does its way to a new token")
    func profileDestination() throws {
        let file = try ConfigFile(
            text: """
                [defaults]
                to = "http://127.0.0.1:9/datasets/all/images"
                refresh_url = "http://127.0.0.1:9/auth/refresh"
                [profile.work]
                put = "http://127.0.0.1:9/files/"
                token_command = "pass show work"
                [profile.plain]
                retries = 1
                """,
            shownPath: "~/.config/uploader-tui/config.toml")
        let work = try EffectiveSettings(file: file, profile: "work", commandLine: CommandLineSettings(arguments: []))
        #expect(
            work.fileArguments == ["--put=http://127.0.0.1:9/files/", "--token-command=pass show work"])
        let plain = try EffectiveSettings(file: file, profile: "plain", commandLine: CommandLineSettings(arguments: []))
        #expect(plain.fileArguments.contains("--to=http://127.0.0.1:9/datasets/all/images"))
        #expect(plain.fileArguments.contains("--refresh-url=http://127.0.0.1:9/auth/refresh"))
    }

    @Test("an error about a file's value names the file as every config error does, whole; the table its name")
    func errorPlace() throws {
        let effective = try settings([])
        let concurrency = try #require(effective.settings.first { $0.key.name == "concurrency" })
        #expect(concurrency.origin.fileLocation == "~/.config/uploader-tui/config.toml:8: profile 'pets'")
        #expect(concurrency.origin.description == "profile pets (config.toml:8)")
        let retries = try #require(effective.settings.first { $0.key.name == "retries" })
        #expect(retries.origin.fileLocation == "~/.config/uploader-tui/config.toml:3: [defaults]")
    }

    @Test("a token is masked, and so is a password in a URL")
    func masking() throws {
        let file = try ConfigFile(
            text: "[profile.a]\ntoken = \"s3cret\"\nproxy = \"http://me:pw@127.0.0.1:3128\"\n", shownPath: "c.toml")
        let effective = try EffectiveSettings(file: file, profile: "a", commandLine: CommandLineSettings(arguments: []))
        let shown = effective.settings.map(\.shownValue).joined(separator: " ")
        #expect(!shown.contains("s3cret") && !shown.contains("pw"))
        #expect(shown.contains("****"))
        #expect(effective.fileArguments.contains("--token=s3cret"))
    }

    @Test("delete takes only the settings it has: the token, S3 and TLS, not the destination")
    func delete() throws {
        let file = try ConfigFile(
            text: "[profile.a]\nto = \"http://x/\"\ntoken = \"t\"\nregion = \"eu-west-1\"\nconcurrency = 2\n",
            shownPath: "c.toml")
        let effective = try EffectiveSettings(
            file: file, profile: "a", commandLine: CommandLineSettings(arguments: []), forDelete: true)
        #expect(effective.fileArguments.sorted() == ["--region=eu-west-1", "--token=t"])
    }

    @Test("an unknown profile stops with the list of profiles")
    func unknownProfile() {
        #expect(throws: ConfigError.self) { try settings([], profile: "pest") }
    }
}
