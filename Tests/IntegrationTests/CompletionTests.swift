import Foundation
import Testing

/// The bash, zsh and fish completion scripts the binary writes (`make install` installs them), run by the real
/// shells: upload's short form (`uploader-tui PATH --to URL`) completes as `uploader-tui upload PATH` does.
@Suite("shell completion")
struct CompletionTests {
    let binary = ChildProcess.uploaderBinary

    /// A folder with `photos/a.jpg`, a profiles file naming `pets` and `work`, and the three scripts.
    final class Place {
        let folder: TestFolder
        let environment: [String: String]

        init(binary: String) async throws {
            folder = try TestFolder("completion")
            let manager = FileManager.default
            try manager.createDirectory(atPath: folder.path + "/photos", withIntermediateDirectories: true)
            _ = try folder.write("photos/a.jpg", size: 10, seed: 1)
            try manager.createDirectory(atPath: folder.path + "/cfg/uploader-tui", withIntermediateDirectories: true)
            try Data(
                "[profile.pets]\nto = \"http://127.0.0.1:1/\"\n[profile.work]\nput = \"http://127.0.0.1:1/\"\n".utf8
            )
            .write(to: URL(fileURLWithPath: folder.path + "/cfg/uploader-tui/config.toml"))
            let bin = URL(fileURLWithPath: binary).deletingLastPathComponent().path
            environment = [
                "PATH": bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
                "XDG_CONFIG_HOME": folder.path + "/cfg", "HOME": folder.path,
            ]
            for shell in ["bash", "zsh", "fish"] {
                let script = try await ChildProcess.run(binary, ["--generate-completion-script", shell])
                #expect(script.status == 0, "\(script.standardError)")
                try Data(script.standardOutput.utf8).write(to: URL(fileURLWithPath: folder.path + "/script.\(shell)"))
            }
        }
    }

    /// The words bash offers for `line` (its last word is the one completed; it ends in a space for a new one).
    func bash(_ place: Place, _ line: String) async throws -> Set<String> {
        let harness = """
            source script.bash
            read -r -a COMP_WORDS <<< "$LINE"
            [[ "$LINE" == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMP_LINE="$LINE"; COMP_POINT=${#LINE}; COMPREPLY=()
            function=$(complete -p uploader-tui | sed 's/.*-F \\([^ ]*\\) .*/\\1/')
            "$function" uploader-tui "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        var environment = place.environment
        environment["LINE"] = line
        let outcome = try await ChildProcess.run(
            "/bin/bash", ["-c", "cd \"$0\" && " + harness, place.folder.path], environment: environment)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        return Set(outcome.standardOutput.split(separator: "\n").map(String.init))
    }

    /// The words fish offers for `line` (`complete -C`), without their descriptions.
    func fish(_ place: Place, _ line: String) async throws -> Set<String> {
        var environment = place.environment
        environment["LINE"] = line
        let outcome = try await ChildProcess.run(
            "/usr/bin/fish",
            ["-N", "-c", "cd $argv[1]; and source script.fish; and complete -C $LINE", place.folder.path],
            environment: environment)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        return Set(outcome.standardOutput.split(separator: "\n").map { String($0.prefix { $0 != "\t" }) })
    }

    @Test("bash: the short form completes upload's options and their values, the first word a path or a command")
    func bashShortForm() async throws {
        let place = try await Place(binary: binary)
        #expect(try await bash(place, "uploader-tui photos --tok") == ["--token", "--token-command"])
        #expect(try await bash(place, "uploader-tui --to http://x/ pho") == ["photos"])
        #expect(try await bash(place, "uploader-tui photos --log-level ") == ["debug", "info", "warning", "error"])
        #expect(try await bash(place, "uploader-tui photos -p ") == ["pets", "work"])
        #expect(try await bash(place, "uploader-tui photos --checksum-algorithm ") == ["crc32", "sha256"])
        #expect(try await bash(place, "uploader-tui --ver").contains("--verify"))
        // Each flag has its --no- form, for one run without a profile's `true`; one named no- has its positive one.
        #expect(try await bash(place, "uploader-tui photos --no-rec") == ["--no-recursive"])
        #expect(try await bash(place, "uploader-tui photos --tu") == ["--tui"])
        let first = try await bash(place, "uploader-tui p")
        #expect(first == ["photos", "ps"], "a path or a command: \(first)")
        // The long form and the other commands complete as before.
        #expect(try await bash(place, "uploader-tui upload -p w") == ["work"])
        #expect(try await bash(place, "uploader-tui ps --j") == ["--json"])
        #expect(try await bash(place, "uploader-tui photos/") == ["photos/a.jpg"])
    }

    @Test("fish: the short form completes upload's options and their values, --http1.1 on the line too")
    func fishShortForm() async throws {
        let place = try await Place(binary: binary)
        #expect(try await fish(place, "uploader-tui photos --tok") == ["--token", "--token-command"])
        #expect(try await fish(place, "uploader-tui photos --log-level ") == ["debug", "info", "warning", "error"])
        #expect(try await fish(place, "uploader-tui photos --checksum-algorithm ") == ["crc32", "sha256"])
        // fish's argparse refused the spec `http1.1`, which left upload and delete with no completion at all.
        #expect(try await fish(place, "uploader-tui upload --http1.1 --verif") == ["--verify"])
        #expect(try await fish(place, "uploader-tui delete --htt") == ["--http1.1", "--http2"])
        #expect(try await fish(place, "uploader-tui upload --no-http1.1 --no-verif") == ["--no-verify"])
        #expect(try await fish(place, "uploader-tui photos --no-rec") == ["--no-recursive"])
        let first = try await fish(place, "uploader-tui p")
        #expect(first.isSuperset(of: ["photos/", "ps"]), "a path or a command: \(first)")
    }

    @Test("zsh: the short form completes upload's option values and profiles, typed in an interactive zsh")
    func zshShortForm() async throws {
        let place = try await Place(binary: binary)
        try FileManager.default.createDirectory(
            atPath: place.folder.path + "/zfunctions", withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: place.folder.path + "/script.zsh", toPath: place.folder.path + "/zfunctions/_uploader-tui")
        var environment = place.environment
        environment.merge(["LANG": "C.UTF-8", "TERM": "xterm-256color", "ZDOTDIR": place.folder.path]) { $1 }
        let tmux = try await TmuxDriver.start(command: "zsh -f -i", cols: 100, rows: 20, environment: environment)
        defer { Task { await tmux.stop() } }
        _ = try await tmux.waitFor { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        // tmux hands the shell its server's PATH whatever the session's environment says.
        let setUp =
            "cd '\(place.folder.path)'; PATH='\(environment["PATH"] ?? "")'; "
            + "fpath=(\"$PWD/zfunctions\" $fpath); autoload -U compinit; "
            + "compinit -u -D; PS1='> '; clear"
        try await tmux.send("-l", setUp)
        try await tmux.send("Enter")
        _ = try await tmux.waitFor { $0.trimmingCharacters(in: .whitespacesAndNewlines) == ">" }
        let cases: [(typed: String, shown: [String])] = [
            ("uploader-tui photos --log-level ", ["debug", "info", "warning", "error"]),
            ("uploader-tui photos -p ", ["pets", "work"]),
            ("uploader-tui --to http://x/ photos --checksum-alg", ["--checksum-algorithm"]),
        ]
        for (typed, shown) in cases {
            try await tmux.send("-l", typed)
            try await tmux.send("Tab")
            let screen = try await tmux.waitFor { screen in shown.allSatisfy { screen.contains($0) } }
            #expect(shown.allSatisfy { screen.contains($0) }, "\(typed): \(screen)")
            try await tmux.send("C-c")
            try await tmux.send("-l", "clear")
            try await tmux.send("Enter")
            _ = try await tmux.waitFor { $0.trimmingCharacters(in: .whitespacesAndNewlines) == ">" }
        }
    }
}
