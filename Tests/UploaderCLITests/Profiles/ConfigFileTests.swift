import Foundation
import Testing

@testable import UploaderCLI

@Suite("ConfigFile")
struct ConfigFileTests {
    static let sample = """
        # uploads
        [defaults]
        retries = 3
        headers = { X-Client = "uploader" }

        [profile.pets]
        to = "http://127.0.0.1:8080/datasets/pets/images"
        concurrency = 2
        stall_timeout = 12.5
        batch = 10
        recursive = true
        headers = ["X-Team: pets", "Authorization: Bearer abc"]
        fields = { album = "pets" }

        [profile.work]
        put = "https://files.example/up/"
        """

    func error(_ text: String) -> ConfigError? {
        do {
            _ = try ConfigFile(text: text, shownPath: "~/.config/uploader-tui/config.toml")
            return nil
        } catch {
            return error
        }
    }

    @Test("defaults and profiles are read with each setting's line, values as their options take them")
    func reads() throws {
        let file = try ConfigFile(text: Self.sample, shownPath: "config.toml")
        #expect(file.defaults?.entries.map(\.key.name) == ["retries", "headers"])
        #expect(file.defaults?.entries.map(\.line) == [3, 4])
        let pets = try file.profile("pets")
        #expect(
            pets.entries.map(\.key.name) == [
                "to", "concurrency", "stall_timeout", "batch", "recursive", "headers", "fields",
            ])
        #expect(pets.entries.map(\.line) == [7, 8, 9, 10, 11, 12, 13])
        #expect(
            pets.entries.map(\.value) == [
                .text("http://127.0.0.1:8080/datasets/pets/images"), .text("2"), .text("12.5"), .text("10"),
                .flag(true),
                .list(["X-Team: pets", "Authorization: Bearer abc"]), .list(["album=pets"]),
            ])
        #expect(file.profiles.keys.sorted() == ["pets", "work"])
        #expect(file.holdsSecret)
    }

    @Test("a file without tokens or credential headers holds no secret")
    func noSecret() throws {
        let file = try ConfigFile(text: "[profile.a]\ntoken_command = \"pass show api\"\n", shownPath: "c.toml")
        #expect(!file.holdsSecret)
        let token = try ConfigFile(text: "[defaults]\ntoken = \"t\"\n", shownPath: "c.toml")
        #expect(token.holdsSecret)
    }

    @Test("a TOML syntax error names the file and TOMLKit's line")
    func syntax() throws {
        let error = try #require(self.error("[profile.pets]\nto = \"http://x/\"\nconcurrency = = 2\n"))
        #expect(error.code == .syntax)
        #expect(error.line == 3)
        #expect(error.description.hasPrefix("~/.config/uploader-tui/config.toml:3: "))
        #expect(!error.description.contains("\n"))
    }

    @Test("a misspelt setting is named with its line and the key it was meant to be")
    func unknownKey() throws {
        let error = try #require(self.error("[profile.pets]\nto = \"http://x/\"\n\nconcurency = 2\n"))
        #expect(error.code == .unknownKey)
        #expect(
            error.description
                == "~/.config/uploader-tui/config.toml:4: profile 'pets' has no setting 'concurency' "
                + "(did you mean 'concurrency'?)")
        let far = try #require(self.error("[defaults]\nzzzzzz = 1\n"))
        #expect(far.description == "~/.config/uploader-tui/config.toml:2: [defaults] has no setting 'zzzzzz'")
    }

    @Test("a flag's opposite is a key too: resume = false is no_resume = true, tui = false no_tui, no_verify verify")
    func inverseFlags() throws {
        let text = "[profile.pets]\nresume = false\ntui = false\nno_verify = true\n\n[profile.work]\nresume = true\n"
        let file = try ConfigFile(text: text, shownPath: "config.toml")
        let pets = try file.profile("pets")
        #expect(pets.entries.map(\.key.name) == ["no_resume", "no_tui", "verify"])
        #expect(pets.entries.map(\.value) == [.flag(true), .flag(true), .flag(false)])
        #expect(pets.entries.map(\.line) == [2, 3, 4])
        #expect(try file.profile("work").entries.map(\.value) == [.flag(false)])
        let type = try #require(self.error("[defaults]\nresume = \"no\"\n"))
        #expect(type.description.hasSuffix(":2: [defaults]: resume takes true or false, not a string"), "\(type)")
        // One section says it once: which of the two would win is a guess.
        let both = try #require(self.error("[profile.pets]\nno_resume = true\nresume = true\n"))
        #expect(both.code == .conflicting)
        #expect(
            both.description
                == "~/.config/uploader-tui/config.toml:3: profile 'pets' sets resume and no_resume (line 2): "
                + "they are one setting, keep one", "\(both)")
    }

    @Test("an unknown section and a value of the wrong type are named with their lines")
    func sectionsAndTypes() throws {
        let section = try #require(self.error("[profiles.pets]\nto = \"x\"\n"))
        #expect(section.code == .unknownKey)
        #expect(section.line == 1)
        let type = try #require(self.error("[profile.pets]\nto = \"x\"\nretries = \"two\"\n"))
        #expect(type.code == .wrongType)
        #expect(
            type.description
                == "~/.config/uploader-tui/config.toml:3: profile 'pets': retries takes an integer, not a string")
        let flag = try #require(self.error("[profile.pets]\nrecursive = \"yes\"\n"))
        #expect(flag.description.hasSuffix(":2: profile 'pets': recursive takes true or false, not a string"))
    }

    @Test("a list of globs takes a string or an array of strings: another value is one line naming the setting")
    func globLists() throws {
        let number = try #require(self.error("[profile.pets]\ninclude = 3\n"))
        #expect(number.code == .wrongType)
        #expect(
            number.description
                == "~/.config/uploader-tui/config.toml:2: profile 'pets': include takes a string or an array of "
                + "strings, not an integer")
        // A table's names would become patterns ("a\nb"): only headers and fields take one.
        let table = try #require(self.error("[profile.pets]\nexclude = { a = \"b\" }\n"))
        #expect(table.code == .wrongType)
        #expect(
            table.description.hasSuffix(
                ":2: profile 'pets': exclude takes a string or an array of strings, not a table"))
        let file = try ConfigFile(
            text: "[defaults]\ninclude = [\"*.jpg\", \"*.png\"]\nexclude = \"raw/\"\n", shownPath: "c")
        #expect(file.defaults?.entries.map(\.value) == [.list(["*.jpg", "*.png"]), .list(["raw/"])])
    }

    @Test("types takes an array of type names as it takes a comma list, and no number")
    func typesList() throws {
        let file = try ConfigFile(
            text: "[profile.a]\ntypes = [\"jpeg\", \"png\"]\n[profile.b]\ntypes = \"jpeg,png\"\n", shownPath: "c")
        #expect(try file.profile("a").entries.map(\.value) == [.text("jpeg,png")])
        #expect(try file.profile("b").entries.map(\.value) == [.text("jpeg,png")])
        let number = try #require(self.error("[profile.pets]\ntypes = 3\n"))
        #expect(
            number.description.hasSuffix(
                ":2: profile 'pets': types takes a string or an array of strings, not an integer"))
        #expect(!number.description.contains("whole number"))
    }

    @Test("a header line that is not a header holds no secret unless its name says so")
    func malformedHeaderSecret() throws {
        let bad = try ConfigFile(text: "[profile.a]\nheaders = [\"bad header\"]\n", shownPath: "c")
        #expect(!bad.holdsSecret)
        let bare = try ConfigFile(text: "[profile.a]\nheaders = [\"Authorization Bearer abc\"]\n", shownPath: "c")
        #expect(bare.holdsSecret)
        let keyed = try ConfigFile(text: "[profile.a]\nheaders = [\"X-Team: a\", \"X-Api-Key: k\"]\n", shownPath: "c")
        #expect(keyed.holdsSecret)
        // A token pasted alone, one word, is a credential whatever it spells.
        let token = try ConfigFile(text: "[profile.a]\nheaders = [\"eyJhbGciOiJIUzI1NiJ9\"]\n", shownPath: "c")
        #expect(token.holdsSecret)
    }

    @Test("a profile that is not a table is said with the right article")
    func profileNotATable() throws {
        let error = try #require(self.error("[profile]\npets = 3\n"))
        #expect(
            error.description.hasSuffix("profile.pets must be a table of settings ([profile.pets]), not an integer"))
    }

    @Test("a key outside any section is said to be one, with where it goes, not taken for a section")
    func topLevelKey() throws {
        let known = try #require(self.error("retries = 3\n[defaults]\nconcurrency = 2\n"))
        #expect(known.code == .unknownKey)
        #expect(
            known.description
                == "~/.config/uploader-tui/config.toml:1: 'retries' is outside any section: settings go under "
                + "[defaults] or [profile.NAME]")
        let misspelt = try #require(self.error("\nretrys = 3\n"))
        #expect(
            misspelt.description.hasSuffix(
                ":2: 'retrys' is outside any section: settings go under [defaults] "
                    + "or [profile.NAME] (did you mean 'retries'?)"))
        let defaults = try #require(self.error("defaults = 3\n"))
        #expect(defaults.description.hasSuffix(":1: 'defaults' must be a section, [defaults], not an integer"))
    }

    @Test("one section setting two destinations (or two token sources) is refused with both lines")
    func exclusiveSettings() throws {
        let both = try #require(self.error("[profile.pets]\nto = \"http://x/\"\nput = \"http://y/\"\n"))
        #expect(both.code == .conflicting)
        #expect(
            both.description
                == "~/.config/uploader-tui/config.toml:3: profile 'pets' sets put and to (line 2): use only one of to, "
                + "put and presign")
        let tokens = try #require(
            self.error("[defaults]\nrefresh_url = \"http://x/\"\ntoken_command = \"pass x\"\n"))
        #expect(
            tokens.description.hasSuffix(
                ":3: [defaults] sets token_command and refresh_url (line 2): use only one of token_command and "
                    + "refresh_url"))
        // [defaults] and a profile each setting one is no conflict: the profile's replaces it (EffectiveSettings).
        #expect(self.error("[defaults]\nto = \"http://x/\"\n[profile.a]\nput = \"http://y/\"\n") == nil)
    }

    @Test("--config naming a folder says so; a missing file says so")
    func folder() throws {
        let folder = FileManager.default.temporaryDirectory.path
        #expect(
            throws: ConfigError(
                code: .unreadable, file: folder, line: nil, reason: "\(folder): is a folder, not a TOML file")
        ) {
            try ConfigFile.load(path: folder, shownPath: folder, required: true)
        }
        let missing = folder + "/no-such-config-\(getpid()).toml"
        #expect(throws: ConfigError(code: .unreadable, file: missing, line: nil, reason: "\(missing): no such file")) {
            try ConfigFile.load(path: missing, shownPath: missing, required: true)
        }
        #expect(try ConfigFile.load(path: missing, shownPath: missing, required: false) == nil)
    }

    @Test("the first problem by line is reported, whichever profile it is in")
    func firstByLine() throws {
        let error = try #require(self.error("[profile.b]\nbogus_b = 1\n[profile.a]\nbogus_a = 1\n"))
        #expect(error.line == 2)
    }

    @Test("an unknown profile lists the profiles there are")
    func unknownProfile() throws {
        let file = try ConfigFile(text: Self.sample, shownPath: "~/.config/uploader-tui/config.toml")
        #expect(throws: ConfigError.self) { try file.profile("pest") }
        do {
            _ = try file.profile("pest")
        } catch {
            #expect(
                error.description
                    == "no profile 'pest' in ~/.config/uploader-tui/config.toml (profiles: pets, work)")
        }
    }

    @Test("a key or profile name holding control characters is named escaped, and a quoted key by its own line")
    func controlCharacters() throws {
        let key = try #require(self.error("[defaults]\n\"ev\\u001B]0;PWN\\u0007il\" = 1\n"))
        #expect(
            key.description == "~/.config/uploader-tui/config.toml:2: [defaults] has no setting 'ev\\x1B]0;PWN\\x07il'")
        let file = try ConfigFile(
            text: "[profile.\"a\\u001B[2Jb\"]\nretries = 1\n", shownPath: "~/.config/uploader-tui/config.toml")
        do {
            _ = try file.profile("ev\u{1B}[2Jil")
            Issue.record("profile() should throw")
        } catch {
            #expect(
                error.description
                    == "no profile 'ev\\x1B[2Jil' in ~/.config/uploader-tui/config.toml (profiles: a\\x1B[2Jb)")
        }
        let missing = ConfigError(code: .unreadable, file: "x", line: nil, reason: "/tmp/a\u{1B}[2J.toml: no such file")
        #expect(missing.description == "/tmp/a\\x1B[2J.toml: no such file")
        #expect(ConfigLocation.shown("/h/a\u{7}b", environment: ["HOME": "/h"]) == "~/a\\x07b")
    }
}
