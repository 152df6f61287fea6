import Foundation
import Testing
import UploaderCLI

/// Profiles from `$XDG_CONFIG_HOME/uploader-tui/config.toml`, through the real binary against the reference server.
@Suite("profiles (config.toml) end to end", .serialized)
struct ProfileTests {
    let binary = ChildProcess.uploaderBinary

    /// A config home holding `uploader-tui/config.toml` with `text`, at `mode`.
    final class ConfigHome {
        let folder: TestFolder
        var file: String { folder.path + "/uploader-tui/config.toml" }
        var environment: [String: String] { ["XDG_CONFIG_HOME": folder.path] }

        init(_ text: String, mode: mode_t = 0o600) throws {
            folder = try TestFolder("config")
            try FileManager.default.createDirectory(
                atPath: folder.path + "/uploader-tui", withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            chmod(file, mode)
        }
    }

    /// Line 2 sets retries in [defaults]; pets' settings are on lines 5-8.
    static func petsConfig(_ server: ServerFixture) -> String {
        """
        [defaults]
        retries = 0

        [profile.pets]
        to = "\(server.url("/datasets/pets/images"))"
        concurrency = 2
        headers = { Authorization = "Bearer s3cret", X-Team = "pets" }
        fields = { album = "pets" }

        [profile.work]
        put = "\(server.url("/files/work/"))"
        token = "t0ken-in-clear"
        """
    }

    func events(_ output: String) -> [[String: Any]] {
        output.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    @Test("-p pets uploads to the profile's URL with its headers: the server takes only its bearer token")
    func profileUploads() async throws {
        let server = try await ServerFixture.start { $0.token = "s3cret" }
        let home = try ConfigHome(Self.petsConfig(server))
        let folder = try TestFolder()
        for i in 0..<3 { try folder.write("pet-\(i).jpg", size: 5_000 + i, seed: UInt64(i), prefix: Magic.jpeg) }

        let outcome = try await ChildProcess.run(
            binary, [folder.path, "-p", "pets", "--json"], environment: home.environment)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(!outcome.standardError.contains("warning"), "mode 0600: \(outcome.standardError)")
        let done = events(outcome.standardOutput).filter { $0["event"] as? String == "done" }
        #expect(done.count == 3)
        #expect(done.allSatisfy { ($0["location"] as? String)?.hasPrefix("datasets/pets/pet-") == true })
        #expect(await server.server.statistics.filesStored == 3)
        #expect(await server.server.statistics.unauthorized == 0)

        // The same files without the profile's Authorization header: the server refuses them.
        let bare = try await ChildProcess.run(
            binary, [folder.path, "--to", server.url("/datasets/pets/images"), "--retries", "0", "--no-resume"],
            environment: home.environment)
        #expect(bare.status == 1, "\(bare.standardError)")
        #expect(await server.server.statistics.unauthorized > 0)
        await server.stop()
    }

    @Test("a flag overrides the profile: --to sends elsewhere, and -H replaces the profile's header of that name")
    func flagOverrides() async throws {
        let server = try await ServerFixture.start { $0.token = "other" }
        let home = try ConfigHome(Self.petsConfig(server))
        let folder = try TestFolder()
        try folder.write("cat.jpg", size: 4_000, seed: 7, prefix: Magic.jpeg)

        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "-p", "pets", "--to", server.url("/datasets/cats/images"), "-H",
                "authorization: Bearer other", "--json",
            ],
            environment: home.environment)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let done = try #require(events(outcome.standardOutput).first { $0["event"] as? String == "done" })
        #expect(done["location"] as? String == "datasets/cats/cat.jpg")
        #expect(await server.server.statistics.unauthorized == 0)
        await server.stop()
    }

    @Test("a flag the file sets true is switched off for one run: --no-recursive, --no-verify, and --resume")
    func flagsSwitchedOff() async throws {
        let server = try await ServerFixture.start()
        let home = try ConfigHome("[defaults]\nrecursive = true\nverify = true\nno_resume = true\n")
        let folder = try TestFolder()
        try folder.write("top.jpg", size: 3_000, seed: 1, prefix: Magic.jpeg)
        try folder.write("sub/deep.jpg", size: 3_000, seed: 2, prefix: Magic.jpeg)
        let journal = folder.path + ".journal.sqlite"
        let base = [folder.path, "--to", server.url("/datasets/off/images"), "--json", "--journal", journal]
        func names(_ output: String, _ event: String) -> [String] {
            events(output).filter { $0["event"] as? String == event }.compactMap { $0["file"] as? String }.sorted()
        }

        let asFiled = try await ChildProcess.run(binary, base, environment: home.environment)
        #expect(asFiled.status == 0, "\(asFiled.standardError)")
        #expect(names(asFiled.standardOutput, "done") == ["sub/deep.jpg", "top.jpg"])
        #expect(names(asFiled.standardOutput, "verifying") == ["sub/deep.jpg", "top.jpg"])

        let switchedOff = base + ["--no-recursive", "--no-verify", "--resume"]
        let off = try await ChildProcess.run(binary, switchedOff, environment: home.environment)
        #expect(off.status == 0, "\(off.standardError)")
        #expect(names(off.standardOutput, "done") == ["top.jpg"])
        #expect(names(off.standardOutput, "verifying").isEmpty)
        // --resume: the journal recorded that run, so this one skips its file.
        let stored = await server.server.statistics.filesStored
        let again = try await ChildProcess.run(binary, switchedOff, environment: home.environment)
        #expect(again.status == 0, "\(again.standardError)")
        #expect(events(again.standardOutput).last?["skipped"] as? Int == 1)
        #expect(await server.server.statistics.filesStored == stored)

        let show = try await ChildProcess.run(
            binary, ["config", "show", "--no-recursive", "--resume"], environment: home.environment)
        #expect(show.status == 0, "\(show.standardError)")
        let lines = show.standardOutput.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("recursive false flag"))
        #expect(lines.contains("no_resume false flag"))
        #expect(lines.contains("verify true defaults (config.toml:3)"))
        await server.stop()
    }

    @Test("config show -p pets names where each setting came from, and masks credentials")
    func configShow() async throws {
        let server = try await ServerFixture.start()
        let home = try ConfigHome(Self.petsConfig(server))
        let show = try await ChildProcess.run(
            binary, ["config", "show", "-p", "pets", "--concurrency", "7"], environment: home.environment)
        #expect(show.status == 0, "\(show.standardError)")
        let lines = show.standardOutput.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("to \(server.url("/datasets/pets/images")) profile pets (config.toml:5)"))
        #expect(lines.contains("concurrency 7 flag"))
        #expect(lines.contains("retries 0 defaults (config.toml:2)"))
        #expect(lines.contains("headers Authorization: ****, X-Team: pets profile pets (config.toml:7)"))
        #expect(lines.contains("grace 10.0 built-in"))
        #expect(lines.contains("recursive false built-in"))
        #expect(!show.standardOutput.contains("s3cret"))

        let work = try await ChildProcess.run(
            binary, ["config", "show", "-p", "work", "--json"], environment: home.environment)
        #expect(work.status == 0, "\(work.standardError)")
        #expect(!work.standardOutput.contains("t0ken-in-clear"))
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(work.standardOutput.utf8)) as? [String: Any])
        let settings = try #require(object["settings"] as? [[String: String]])
        #expect(
            settings.first { $0["key"] == "token" } == [
                "key": "token", "value": "****", "source": "profile work (config.toml:12)",
            ])
        await server.stop()
    }

    @Test("config show names the environment and the aws CLI's profile where they give the token, endpoint or region")
    func configShowEnvironment() async throws {
        let home = try ConfigHome("")
        let aws = home.folder.path + "/aws-config"
        try Data("[profile work]\nregion = eu-west-3\nendpoint_url = http://minio.test:9000\n".utf8)
            .write(to: URL(fileURLWithPath: aws))
        var environment = home.environment.merging([
            "AWS_CONFIG_FILE": aws, "AWS_PROFILE": "work", "UPLOADER_TOKEN": "t0ken-from-env", "AWS_REGION": "",
            "AWS_DEFAULT_REGION": "", "AWS_ENDPOINT_URL_S3": "", "AWS_ENDPOINT_URL": "",
        ]) { $1 }
        func rows() async throws -> [String] {
            let show = try await ChildProcess.run(binary, ["config", "show"], environment: environment)
            #expect(show.status == 0, "\(show.standardError)")
            #expect(!show.standardOutput.contains("t0ken-from-env"))
            return show.standardOutput.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        }
        let fromProfile = try await rows()
        #expect(fromProfile.contains("token **** $UPLOADER_TOKEN"))
        #expect(fromProfile.contains("endpoint_url http://minio.test:9000 endpoint_url in \(aws) [profile work]"))
        #expect(fromProfile.contains("region eu-west-3 region in \(aws) [profile work]"))

        environment["AWS_REGION"] = "us-west-2"
        environment["AWS_ENDPOINT_URL_S3"] = "http://127.0.0.1:9000"
        let fromEnvironment = try await rows()
        #expect(fromEnvironment.contains("endpoint_url http://127.0.0.1:9000 $AWS_ENDPOINT_URL_S3"))
        #expect(fromEnvironment.contains("region us-west-2 $AWS_REGION"))
    }

    @Test("a broken file or value, or an unknown profile: one line naming the file whole and the line, exit 2")
    func badInput() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("a.jpg", size: 100, seed: 1, prefix: Magic.jpeg)
        let cases: [(config: String, profile: String, expected: String)] = [
            (Self.petsConfig(server), "pest", "no profile 'pest' in "),
            ("[profile.pets]\nto = \"\(server.url("/x"))\"\nconcurrency = = 2\n", "pets", "config.toml:3: "),
            (
                "[profile.pets]\nto = \"\(server.url("/x"))\"\nconcurency = 2\n", "pets",
                "config.toml:3: profile 'pets' has no setting 'concurency' (did you mean 'concurrency'?)"
            ),
            (
                "[profile.pets]\nretries = \"two\"\n", "pets",
                "config.toml:2: profile 'pets': retries takes an integer"
            ),
            // A value of the right type that the option refuses: named with the line that set it.
            (
                "[profile.pets]\nto = \"\(server.url("/x"))\"\nconcurrency = 0\n", "pets",
                "/config.toml:3: profile 'pets': --concurrency takes auto or a number of requests"
            ),
            (
                "[profile.pets]\nto = \"\(server.url("/x"))\"\nheaders = [\"Bad Header\"]\n", "pets",
                // Masked: a line that is not `Name: value` may be a bare token.
                "/config.toml:3: profile 'pets': -H '****': not a header"
            ),
            // Named with the file's line, as the -H above: the user never typed -F.
            (
                "[profile.pets]\nto = \"\(server.url("/x"))\"\nfields = [\"noequals\"]\n", "pets",
                "/config.toml:3: profile 'pets': -F 'noequals': not a form field; expected name=value"
            ),
            (
                "[profile.pets]\nto = \"\(server.url("/x"))\"\ninclude = 3\n", "pets",
                "/config.toml:3: profile 'pets': include takes a string or an array of strings, not an integer"
            ),
            (
                "[profile.pets]\nto = \"\(server.url("/x"))\"\nput = \"\(server.url("/y/"))\"\n", "pets",
                "/config.toml:3: profile 'pets' sets put and to (line 2): use only one of to, put and presign"
            ),
            (
                "retries = 3\n[profile.pets]\nto = \"\(server.url("/x"))\"\n", "pets",
                "/config.toml:1: 'retries' is outside any section: settings go under [defaults] or [profile.NAME]"
            ),
        ]
        for (config, profile, expected) in cases {
            let home = try ConfigHome(config)
            let outcome = try await ChildProcess.run(
                binary, [folder.path, "-p", profile, "--no-tui"], environment: home.environment)
            #expect(outcome.status == 2, "\(expected): \(outcome.standardError)")
            // Every error about the file names it the same way, whole, whether its TOML, a key or a value is wrong.
            #expect(
                profile == "pest" || outcome.standardError.hasPrefix("uploader-tui: \(home.file):"),
                "\(outcome.standardError)")
            // config show refuses what a run refuses, in the same words.
            let shown = try await ChildProcess.run(
                binary, ["config", "show", "-p", profile], environment: home.environment)
            #expect(shown.status == 2, "\(expected): \(shown.standardError)")
            #expect(shown.standardError.contains(expected), "\(shown.standardError)")
            #expect(outcome.standardError.contains(expected), "\(outcome.standardError)")
            #expect(outcome.standardError.split(separator: "\n").count == 1, "one line: \(outcome.standardError)")
        }
        let home = try ConfigHome(Self.petsConfig(server))
        let unknown = try await ChildProcess.run(binary, [folder.path, "-p", "pest"], environment: home.environment)
        #expect(unknown.standardError.contains("(profiles: pets, work)"))
        #expect(await server.server.statistics.requests == 0)
        await server.stop()
    }

    @Test("a --results or --config path, a -p name, the profiles listed and a TOML key: control characters escaped")
    func controlCharactersEscaped() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("a.jpg", size: 100, seed: 1, prefix: Magic.jpeg)
        let evil = "ev\u{1B}[2J\u{1B}]0;PWN\u{7}il"
        let home = try ConfigHome("[profile.\"p\\u001B[2Jq\"]\nretries = 1\n")
        let keyHome = try ConfigHome("[defaults]\n\"ev\\u001B]0;PWN\\u0007il\" = 1\n")
        let cases: [(arguments: [String], environment: [String: String], expected: String)] = [
            (
                ["--put", server.url("/x/"), "--results", "/nonexist/\(evil)/r.json"], [:],
                "cannot write in /nonexist/ev\\x1B[2J\\x1B]0;PWN\\x07il"
            ),
            (["--put", server.url("/x/"), "--config", "/nonexist/\(evil).toml"], [:], "ev\\x1B[2J\\x1B]0;PWN"),
            (
                ["--put", server.url("/x/"), "-p", evil], home.environment,
                "no profile 'ev\\x1B[2J\\x1B]0;PWN\\x07il' in "
            ),
            (["--put", server.url("/x/"), "-p", "x"], home.environment, "(profiles: p\\x1B[2Jq)"),
            (
                ["--put", server.url("/x/")], keyHome.environment,
                "config.toml:2: [defaults] has no setting 'ev\\x1B]0;"
            ),
        ]
        for (arguments, environment, expected) in cases {
            let outcome = try await ChildProcess.run(
                binary, [folder.path, "--no-tui", "--no-resume"] + arguments, environment: environment)
            #expect(outcome.status == 2, "\(outcome.standardError)")
            #expect(outcome.standardError.contains(expected), "\(outcome.standardError)")
            #expect(!outcome.standardError.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{7}" })
        }
        #expect(await server.server.statistics.requests == 0)
        await server.stop()
    }

    @Test("--insecure, typed or from a profile, is said at the start; a run without it says nothing of TLS")
    func insecureSaid() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("a.jpg", size: 100, seed: 1, prefix: Magic.jpeg)
        let home = try ConfigHome("[profile.lab]\ninsecure = true\n")
        let note = "note: --insecure: TLS certificates are not verified\n"
        let cases: [(arguments: [String], said: Bool)] = [
            (["--insecure"], true), (["-p", "lab"], true), ([], false),
        ]
        for (arguments, said) in cases {
            let outcome = try await ChildProcess.run(
                binary, [folder.path, "--put", server.url("/files/x/"), "--no-tui", "--no-resume"] + arguments,
                environment: home.environment)
            #expect(outcome.status == 0, "\(outcome.standardError)")
            #expect(outcome.standardError.hasPrefix(note) == said, "\(arguments): \(outcome.standardError)")
        }
        await server.stop()
    }

    @Test("a token in a file others can read draws a warning, and the run goes on")
    func readableTokenWarns() async throws {
        let server = try await ServerFixture.start { $0.token = "t0ken-in-clear" }
        let home = try ConfigHome(Self.petsConfig(server), mode: 0o644)
        let folder = try TestFolder()
        try folder.write("w.bin", size: 1_000, seed: 2)
        let outcome = try await ChildProcess.run(
            binary, [folder.path, "-p", "work", "--no-tui"], environment: home.environment)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(
            outcome.standardError.contains(
                "holds a token or password and is readable by others (mode 0644); chmod 600 it"))
        #expect(!outcome.standardError.contains("t0ken-in-clear"))
        #expect(await server.server.statistics.filesStored == 1)

        // A line that is not a header is masked when shown, but holds no credential: no warning, only the error.
        let badHeader = try ConfigHome(
            "[profile.bad]\nput = \"\(server.url("/files/bad/"))\"\nheaders = [\"bad header\"]\n", mode: 0o644)
        let refused = try await ChildProcess.run(
            binary, [folder.path, "-p", "bad", "--no-tui"], environment: badHeader.environment)
        #expect(refused.status == 2, "\(refused.standardError)")
        #expect(!refused.standardError.contains("warning"), "\(refused.standardError)")
        await server.stop()
    }

    @Test("a 401 names where the refused token came from: the profile's line, --token or UPLOADER_TOKEN")
    func unauthorizedNamesTheToken() async throws {
        let server = try await ServerFixture.start { $0.token = "right" }
        let home = try ConfigHome(Self.petsConfig(server))
        let folder = try TestFolder()
        try folder.write("w.bin", size: 1_000, seed: 3)
        let put = server.url("/files/work/")
        // The profile's token beats UPLOADER_TOKEN, so the hint must not point at the variable.
        let cases: [(arguments: [String], variable: String, origin: String)] = [
            (["-p", "work"], "right", "token of profile work, \(home.file):12"),
            (["--put", put, "--token", "wrong"], "right", "--token"),
            (["--put", put], "wrong", "UPLOADER_TOKEN"),
            (["--put", put, "--token-command", "echo wrong"], "", "--token-command"),
        ]
        for (arguments, variable, origin) in cases {
            var environment = home.environment
            environment["UPLOADER_TOKEN"] = variable
            let outcome = try await ChildProcess.run(
                binary, [folder.path, "--no-tui", "--no-resume"] + arguments, environment: environment)
            #expect(outcome.status == 1, "\(arguments): \(outcome.standardError)")
            #expect(
                outcome.standardError.contains("HTTP 401 unauthorized (check \(origin))"),
                "\(arguments): \(outcome.standardError)")
            #expect(!outcome.standardError.contains("t0ken-in-clear") && !outcome.standardError.contains("wrong"))
        }
        let delete = try await ChildProcess.run(
            binary, ["delete", "-p", "work", "--from", server.url("/objects/"), "files/work/w.bin"],
            environment: home.environment.merging(["UPLOADER_TOKEN": "right"]) { $1 })
        #expect(delete.status == 1, "\(delete.standardError)")
        #expect(
            delete.standardError.contains("HTTP 401 unauthorized (check token of profile work, \(home.file):12)"),
            "\(delete.standardError)")
        #expect(!delete.standardError.contains("t0ken-in-clear"))
        await server.stop()
    }

    @Test("--config names another file; without any file and without -p a run goes on as before")
    func configFlagAndNoFile() async throws {
        let server = try await ServerFixture.start()
        let home = try ConfigHome(Self.petsConfig(server))
        let folder = try TestFolder()
        try folder.write("b.jpg", size: 900, seed: 4, prefix: Magic.jpeg)
        let elsewhere = try await ChildProcess.run(
            binary, [folder.path, "--config", home.file, "-p", "pets", "-H", "Authorization: Bearer x", "--no-tui"])
        #expect(elsewhere.status == 0, "\(elsewhere.standardError)")
        let plain = try await ChildProcess.run(
            binary, [folder.path, "--to", server.url("/datasets/p/images"), "--no-tui"])
        #expect(plain.status == 0, "\(plain.standardError)")
        let missing = try await ChildProcess.run(binary, [folder.path, "-p", "pets", "--no-tui"])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("no profile 'pets': there is no "), "\(missing.standardError)")
        let aFolder = try await ChildProcess.run(binary, [folder.path, "--config", home.folder.path, "--no-tui"])
        #expect(aFolder.status == 2)
        #expect(aFolder.standardError == "uploader-tui: \(home.folder.path): is a folder, not a TOML file\n")
        await server.stop()
    }

    @Test("every option of upload has a profile key, and every key an option (the table cannot fall behind)")
    func everyOptionHasAKey() async throws {
        let dump = try await ChildProcess.run(binary, ["upload", "--experimental-dump-help"])
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(dump.standardOutput.utf8)) as? [String: Any])
        let command = try #require(root["command"] as? [String: Any])
        let arguments = try #require(command["arguments"] as? [[String: Any]])
        let notSettings: Set<String> = ["--help", "-h", "--version", "--profile", "-p", "--config"]
        var spellings: Set<String> = []
        for argument in arguments where argument["kind"] as? String != "positional" {
            let names = (argument["names"] as? [[String: String]] ?? []).map {
                ($0["kind"] == "short" ? "-" : "--") + ($0["name"] ?? "")
            }
            spellings.formUnion(names)
            guard notSettings.isDisjoint(with: names) else { continue }
            let key = names.lazy.compactMap { name in
                guard name.hasPrefix("--") else { return ProfileKey.forShort(name.last!) }
                let long = String(name.dropFirst(2))
                return ProfileKey.forLong(long) ?? ProfileKey.forInverse(long)
            }.first
            #expect(key != nil, "no profile key for \(names)")
        }
        for key in ProfileKey.all {
            #expect(spellings.contains(key.spelling), "\(key.name): upload has no \(key.spelling)")
            // A file's `true` can be switched off for one run.
            if let inverse = key.inverse {
                #expect(spellings.contains("--" + inverse), "\(key.name): upload has no --\(inverse)")
            }
        }
    }
}
