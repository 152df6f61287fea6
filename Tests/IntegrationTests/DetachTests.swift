import Foundation
import Testing

/// Runs that outlive their terminal (issue 18): the real binary in tmux, a run process, screens that come and go.
@Suite("detach, attach, ps and stop", .serialized)
struct DetachTests {
    /// A private runtime folder, so `ps` and `attach` see only this test's runs.
    let runtime: TestFolder
    var environment: [String: String] { ["XDG_RUNTIME_DIR": runtime.path] }

    init() throws {
        runtime = try TestFolder("rt")
    }

    /// `uploader-tui ps --json`, parsed.
    func ps() async throws -> [[String: Any]] {
        let outcome = try await ChildProcess.run(
            ChildProcess.uploaderBinary, ["ps", "--json"], environment: environment)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let parsed = try JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8))
        return try #require(parsed as? [[String: Any]], "\(outcome.standardOutput)")
    }

    func run(_ id: String) async throws -> [String: Any]? {
        try await ps().first { $0["id"] as? String == id }
    }

    /// The ID in "detached; uploader-tui attach 3f2c".
    func detachedID(_ text: String) -> String? {
        text.split(separator: "\n").lazy.compactMap { line -> String? in
            guard let range = line.range(of: "detached; uploader-tui attach ") else { return nil }
            return String(line[range.upperBound...]).trimmingCharacters(in: .whitespaces)
        }.first
    }

    func row(_ screen: String, _ name: String) -> String {
        screen.split(separator: "\n").first { $0.contains(name) }.map(String.init) ?? ""
    }

    /// The number after `label` in the header ("done 3").
    func count(_ screen: String, _ label: String) -> Int? {
        guard let range = screen.range(of: label + " ") else { return nil }
        return Int(screen[range.upperBound...].prefix { $0.isNumber })
    }

    func quoted(_ arguments: [String]) -> String {
        arguments.map { "'\($0)'" }.joined(separator: " ")
    }

    @Test(
        "d gives the shell back while the server keeps receiving; attach shows the run, c and r work over the socket; a hang-up leaves it running to the end, every file once"
    )
    func detachAttachHangUp() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("detach")
        try folder.write("a-big.jpg", size: 4 << 20, seed: 1, prefix: Magic.jpeg)
        for i in 0..<5 { try folder.write("pet-\(i).png", size: 200_000 + i, seed: UInt64(20 + i), prefix: Magic.png) }
        let upload = quoted([
            ChildProcess.uploaderBinary, folder.path, "--to", server.url("/datasets/detach/images"), "--limit-rate",
            "128K", "--concurrency", "2", "--journal", folder.path + ".journal",
        ])
        var shellEnvironment = ["LANG": "C.UTF-8", "TERM": "xterm-256color"]
        shellEnvironment.merge(environment) { $1 }
        let tmux = try await TmuxDriver.start(
            command: "bash --norc --noprofile -i", environment: shellEnvironment)
        defer { Task { await tmux.stop() } }
        _ = try await tmux.waitFor { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        try await tmux.send("-l", upload)
        try await tmux.send("Enter")

        var screen = try await tmux.waitFor(timeout: .seconds(30)) { row($0, "a-big.jpg").contains("uploading") }
        #expect(row(screen, "a-big.jpg").contains("uploading"), "\(screen)")
        try await tmux.send("d")
        screen = try await tmux.waitFor { detachedID($0) != nil }
        let id = try #require(detachedID(screen), "\(screen)")
        // The shell is back: it runs the next command typed.
        try await tmux.send("-l", "echo shell-is-$((20+22))")
        try await tmux.send("Enter")
        screen = try await tmux.waitFor { $0.split(separator: "\n").contains("shell-is-42") }
        #expect(screen.split(separator: "\n").contains("shell-is-42"), "the shell is back: \(screen)")

        // The run goes on without its screen: the server keeps receiving.
        let received = await server.server.statistics.bytesReceived
        try await waitUntil("more bytes at the server", timeout: .seconds(30)) {
            await server.server.statistics.bytesReceived > received
        }
        let listed = try #require(try await run(id))
        #expect(listed["state"] as? String == "running")
        #expect(listed["files"] as? Int == 6)

        try await tmux.send("-l", quoted([ChildProcess.uploaderBinary, "attach", id]))
        try await tmux.send("Enter")
        screen = try await tmux.waitFor(timeout: .seconds(20)) { row($0, "a-big.jpg").contains("uploading") }
        let stored = await server.server.statistics.filesStored
        let shownDone = try #require(count(screen, "done"), "\(screen)")
        #expect(shownDone >= (listed["done"] as? Int ?? 0) && shownDone <= stored, "\(screen)")
        let shown = ["queued", "active", "done", "failed"].compactMap { count(screen, $0) }.reduce(0, +)
        #expect(shown == 6, "the attached screen counts the whole batch: \(screen)")

        // Commands travel over the socket: cancel the big file, then retry it.
        try await tmux.send("c")
        screen = try await tmux.waitFor { row($0, "a-big.jpg").contains("cancelled") }
        #expect(row(screen, "a-big.jpg").contains("cancelled"), "\(screen)")
        try await tmux.send("r")
        screen = try await tmux.waitFor { !row($0, "a-big.jpg").contains("cancelled") }
        #expect(!row(screen, "a-big.jpg").contains("cancelled"), "\(screen)")

        // The terminal goes away (SIGHUP to the screen): the run finishes on its own.
        await tmux.stop()
        try await waitUntil("the run's end", timeout: .seconds(120), every: .milliseconds(200)) {
            try await run(id)?["state"] as? String == "done"
        }
        let statistics = await server.server.statistics
        let files = statistics.storedByPath.filter { !$0.key.hasSuffix("manifest.json") }
        #expect(files.count == 6, "\(statistics.storedByPath)")
        #expect(files.values.allSatisfy { $0 == 1 }, "every file arrives once: \(statistics.storedByPath)")
        let ended = try #require(try await run(id))
        #expect(ended["done"] as? Int == 6)
        await server.stop()
    }

    @Test(
        "--detach starts without a screen; ps --json lists it; attach after the end shows its last screen once, then says it has ended"
    )
    func detachFlagAndEndedRun() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("detach-flag")
        for i in 0..<3 { try folder.write("p\(i).png", size: 60_000, seed: UInt64(40 + i), prefix: Magic.png) }
        let arguments = [
            // One at a time, 1.8 s: the graph has seconds to show.
            folder.path, "--to", server.url("/datasets/flag/images"), "--limit-rate", "100K", "--concurrency", "1",
            "--detach",
            "--journal", folder.path + ".journal",
        ]
        let started = try await ChildProcess.run(ChildProcess.uploaderBinary, arguments, environment: environment)
        #expect(started.status == 0, "\(started.standardError)")
        let id = try #require(detachedID(started.standardOutput), "\(started.standardOutput)")
        let listed = try #require(try await run(id))
        #expect(listed["source"] as? String == folder.path)
        #expect((listed["destination"] as? String)?.hasSuffix("/datasets/flag/images") == true)
        #expect(["running", "done"].contains(listed["state"] as? String), "\(listed)")
        for key in ["files", "done", "failed", "bytes_sent", "bytes_total", "bytes_per_second", "pid", "started"] {
            #expect(listed[key] != nil, "ps --json has \(key)")
        }
        try await waitUntil("the run's end", timeout: .seconds(60), every: .milliseconds(200)) {
            try await run(id)?["state"] as? String == "done"
        }
        let runs = runtime.path + "/uploader-tui/"
        #expect(!FileManager.default.fileExists(atPath: runs + "\(id).sock"))
        // The rows wait in a file of their own; `ps` reads only the record.
        #expect(FileManager.default.fileExists(atPath: runs + "\(id).last.json"))
        let record = try String(contentsOfFile: runs + "\(id).json", encoding: .utf8)
        #expect(!record.contains("p0.png"), "\(record)")

        // Not seen yet: attach shows how it ended.
        let exitFile = folder.path + ".exit"
        let attach = quoted([ChildProcess.uploaderBinary, "attach"])
        var tmuxEnvironment = ["LANG": "C.UTF-8", "TERM": "xterm-256color"]
        tmuxEnvironment.merge(environment) { $1 }
        let tmux = try await TmuxDriver.start(
            command: "\(attach); echo $? > '\(exitFile)'; sleep 60", environment: tmuxEnvironment)
        defer { Task { await tmux.stop() } }
        var screen = try await tmux.waitFor(timeout: .seconds(20)) { $0.contains("Upload complete") }
        #expect(screen.contains("Upload complete") && screen.contains("done 3"), "\(screen)")
        // The run process is gone, yet its last screen has the graph of its seconds and each file's curl command.
        #expect(screen.contains("peak ") && !screen.contains("throughput graph"), "\(screen)")
        try await tmux.send("Enter")
        screen = try await tmux.waitFor { $0.contains("y copies it") }
        #expect(screen.contains("curl ") && screen.contains("/datasets/flag/images"), "\(screen)")
        try await tmux.send("Escape")
        try await tmux.send("q")
        try await waitUntil("attach to leave", timeout: .seconds(10)) {
            FileManager.default.fileExists(atPath: exitFile)
        }
        #expect(
            try String(contentsOfFile: exitFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) == "0"
        )

        // Seen: now it is one line and exit 4, for attach and for stop, and the rows are gone.
        #expect(!FileManager.default.fileExists(atPath: runs + "\(id).last.json"))
        // An ID typed in upper case names the same run; the time is on a 24-hour clock whatever the locale.
        var posix = environment
        posix["LANG"] = "C.UTF-8"
        let again = try await ChildProcess.run(
            ChildProcess.uploaderBinary, ["attach", id.uppercased()], environment: posix)
        #expect(again.status == 4)
        #expect(again.standardError.hasPrefix("uploader-tui: run \(id) has ended (done at "), "\(again.standardError)")
        let clock = try Regex(#"done at [0-2][0-9]:[0-5][0-9], exit 0\)"#)
        #expect(again.standardError.contains(clock), "\(again.standardError)")
        let newest = try await ChildProcess.run(ChildProcess.uploaderBinary, ["attach"], environment: environment)
        #expect(newest.status == 4)
        #expect(newest.standardError == "uploader-tui: no run to attach to; `uploader-tui ps` lists the runs\n")
        let stop = try await ChildProcess.run(ChildProcess.uploaderBinary, ["stop", id], environment: environment)
        #expect(stop.status == 4 && stop.standardError.contains("has ended"), "\(stop.standardError)")
        let unknown = try await ChildProcess.run(
            ChildProcess.uploaderBinary, ["attach", "beef"], environment: environment)
        #expect(unknown.status == 4)
        #expect(unknown.standardError == "uploader-tui: no run beef here; `uploader-tui ps` lists the runs\n")
        let bad = try await ChildProcess.run(ChildProcess.uploaderBinary, ["stop", "../x"], environment: environment)
        #expect(bad.status == 2 && bad.standardError.contains("is not a run ID"), "\(bad.standardError)")

        // A rerun with one file more sends that one: ps counts its files as its bytes, the skipped ones in neither.
        try folder.write("p3.png", size: 60_000, seed: 43, prefix: Magic.png)
        let rerun = try await ChildProcess.run(ChildProcess.uploaderBinary, arguments, environment: environment)
        let second = try #require(detachedID(rerun.standardOutput), "\(rerun.standardOutput)")
        try await waitUntil("the rerun's end", timeout: .seconds(60), every: .milliseconds(200)) {
            try await run(second)?["state"] as? String == "done"
        }
        let table = try await ChildProcess.run(ChildProcess.uploaderBinary, ["ps"], environment: environment)
        let line = table.standardOutput.split(separator: "\n").first { $0.hasPrefix(second + " ") } ?? ""
        #expect(line.contains(" 1/1 ") && line.contains("58.6 KiB of 58.6 KiB"), "\(table.standardOutput)")
        await server.stop()
    }

    @Test("two stops at once both stop the run and wait for it; the files in flight finish, the rest are cancelled")
    func twoStops() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("detach-stop")
        for i in 0..<6 { try folder.write("s\(i).png", size: 300_000, seed: UInt64(60 + i), prefix: Magic.png) }
        let started = try await ChildProcess.run(
            ChildProcess.uploaderBinary,
            [
                folder.path, "--to", server.url("/datasets/stop/images"), "--limit-rate", "200K", "--concurrency", "1",
                "--detach", "--journal", folder.path + ".journal",
            ], environment: environment)
        let id = try #require(detachedID(started.standardOutput), "\(started.standardError)")
        try await waitUntil("bytes at the server", timeout: .seconds(20)) {
            await server.server.statistics.bytesReceived > 0
        }
        // Both started here, one after the other: child tasks of `async let` wait for a pool thread, and in the busy
        // suite the second began only after the first stop had ended the run.
        let first = try ChildProcess.start(ChildProcess.uploaderBinary, ["stop", id], environment: environment)
        let second = try ChildProcess.start(ChildProcess.uploaderBinary, ["stop", id], environment: environment)
        let (a, b) = (await first.wait(), await second.wait())
        for outcome in [a, b] {
            #expect(outcome.status == 0, "\(outcome.standardError)")
            #expect(outcome.standardOutput.hasPrefix("stopped run \(id): 6 files: "), "\(outcome.standardOutput)")
        }
        try await waitUntil("the run's end", timeout: .seconds(30), every: .milliseconds(100)) {
            try await run(id)?["state"] as? String == "stopped"
        }
        let ended = try #require(try await run(id))
        #expect((ended["cancelled"] as? Int ?? 0) >= 4, "\(ended)")
        // The batch's bytes, the cancelled files' included: not "100%" of what was sent.
        #expect(ended["bytes_total"] as? Int == 6 * 300_000, "\(ended)")
        await server.stop()
    }

    @Test("the run process's command line, which every user can read, holds no header or URL secret; it is named")
    func commandLineHoldsNoSecret() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("detach-cmdline")
        for i in 0..<3 { try folder.write("c\(i).png", size: 100_000, seed: UInt64(90 + i), prefix: Magic.png) }
        let started = try await ChildProcess.run(
            ChildProcess.uploaderBinary,
            [
                folder.path, "--put", server.url("/files/cmdline/?token=s3cr3t-query"), "-H",
                "X-Api-Key: s3cr3t-header", "--limit-rate", "50K", "--concurrency", "1", "--no-resume", "--detach",
            ],
            environment: environment)
        let id = try #require(detachedID(started.standardOutput), "\(started.standardError)")
        let pid = try #require(try await run(id)?["pid"] as? Int)
        let cmdline = String(
            decoding: FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data(), as: UTF8.self)
        #expect(cmdline.contains("_serve-run"), "\(cmdline)")
        #expect(!cmdline.contains("s3cr3t"), "\(cmdline)")
        let name = try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)
        #expect(name == "uploader-tui\n")
        let stop = try await ChildProcess.run(ChildProcess.uploaderBinary, ["stop", id], environment: environment)
        #expect(stop.status == 130 || stop.status == 0, "\(stop.standardError)")
        await server.stop()
    }

    @Test("a suspended run is listed so at once by ps; stop and attach say so instead of waiting for its hello")
    func suspendedRun() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("detach-suspended")
        for i in 0..<3 { try folder.write("s\(i).png", size: 100_000, seed: UInt64(60 + i), prefix: Magic.png) }
        let started = try await ChildProcess.run(
            ChildProcess.uploaderBinary,
            [
                folder.path, "--put", server.url("/files/suspended/"), "--limit-rate", "50K", "--concurrency", "1",
                "--no-resume", "--detach",
            ],
            environment: environment)
        let id = try #require(detachedID(started.standardOutput), "\(started.standardError)")
        let pid = pid_t(try #require(try await run(id)?["pid"] as? Int))
        kill(pid, SIGSTOP)
        #expect(try await run(id)?["state"] as? String == "suspended")
        let stop = try await ChildProcess.run(ChildProcess.uploaderBinary, ["stop", id], environment: environment)
        #expect(stop.status == 5)
        #expect(stop.standardError.contains("run \(id) is suspended (pid \(pid))"), "\(stop.standardError)")
        kill(pid, SIGCONT)
        #expect(try await run(id)?["state"] as? String == "running")
        let resumed = try await ChildProcess.run(ChildProcess.uploaderBinary, ["stop", id], environment: environment)
        #expect(resumed.status == 130 || resumed.status == 0, "\(resumed.standardError)")
        await server.stop()
    }

    @Test("a usage error that quotes an argument quotes no secret of it")
    func usageErrorHidesSecrets() async throws {
        let folder = try TestFolder("usage-secret")
        try folder.write("a.bin", size: 10, seed: 1)
        let outcome = try await ChildProcess.run(
            ChildProcess.uploaderBinary,
            [folder.path, "--put", "http://127.0.0.1:9/x/", "-HAuthorization:s3cr3t-attached", "--no-tui"])
        #expect(outcome.status == 2)
        #expect(outcome.standardError.contains("-HAuthorization:REDACTED"), "\(outcome.standardError)")
        #expect(!outcome.standardError.contains("s3cr3t"), "\(outcome.standardError)")
    }

    @Test("a headless run hides the secrets of its own command line, as curl hides -u's password")
    func ownCommandLineHidden() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("cmdline-own")
        try folder.write("a.png", size: 200_000, seed: 95, prefix: Magic.png)
        let child = try ChildProcess.start(
            ChildProcess.uploaderBinary,
            [
                folder.path, "--put", server.url("/files/own/?sig=s3cr3t-query&size=1"), "-H",
                "Authorization: Bearer s3cr3t-header", "--token=s3cr3t-token", "--limit-rate", "50K", "--json",
                "--no-resume",
            ])
        try await waitUntil("the first file's start") { child.standardOutputSoFar.contains("\"started\"") }
        let cmdline = String(
            decoding: FileManager.default.contents(atPath: "/proc/\(child.pid)/cmdline") ?? Data(), as: UTF8.self)
        child.signal(SIGKILL)
        _ = await child.wait()
        #expect(!cmdline.contains("s3cr3t"), "\(cmdline)")
        #expect(cmdline.contains("Authorization: ****"), "\(cmdline)")
        #expect(cmdline.contains("&size=1"), "\(cmdline)")
        await server.stop()
    }

    @Test(
        "a run killed with -9: attach finds its socket stale, says so and removes it; a rerun resumes from the journal")
    func killedRun() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("detach-kill")
        for i in 0..<6 { try folder.write("k\(i).png", size: 150_000, seed: UInt64(80 + i), prefix: Magic.png) }
        let arguments = [
            folder.path, "--to", server.url("/datasets/kill/images"), "--concurrency", "1",
            "--journal", folder.path + ".journal",
        ]
        let started = try await ChildProcess.run(
            ChildProcess.uploaderBinary, arguments + ["--limit-rate", "150K", "--detach"], environment: environment)
        let id = try #require(detachedID(started.standardOutput), "\(started.standardError)")
        try await waitUntil("a file recorded done", timeout: .seconds(30), every: .milliseconds(20)) {
            (try? await journalDonePaths(folder.path + ".journal"))?.isEmpty == false
        }
        let pid = try #require(try await run(id)?["pid"] as? Int)
        // The run's record follows the batch: what was done when it died is what ps lists as gone.
        let record = runtime.path + "/uploader-tui/\(id).json"
        try await waitUntil("the record counts a file done", timeout: .seconds(30), every: .milliseconds(50)) {
            let data = FileManager.default.contents(atPath: record) ?? Data()
            let info = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["info"] as? [String: Any]
            return info?["done"] as? Int ?? 0 >= 1
        }
        kill(pid_t(pid), SIGKILL)
        try await waitUntil("the run process gone") { kill(pid_t(pid), 0) != 0 }
        let socket = runtime.path + "/uploader-tui/\(id).sock"
        #expect(FileManager.default.fileExists(atPath: socket), "kill -9 leaves the socket")
        // ps lists it gone once, with what it had done; attach still says what became of it.
        let gone = try #require(try await run(id))
        #expect(gone["state"] as? String == "gone" && gone["done"] as? Int ?? 0 >= 1, "\(gone)")
        #expect(try await run(id) == nil, "listed once")
        let attach = try await ChildProcess.run(ChildProcess.uploaderBinary, ["attach", id], environment: environment)
        #expect(attach.status == 4)
        let said =
            "uploader-tui: run \(id) is gone: its process was killed (pid \(pid)); its stale socket is removed. "
            + "Run the same command again to resume from the journal\n"
        #expect(attach.standardError == said, "\(attach.standardError)")
        #expect(!FileManager.default.fileExists(atPath: socket))
        // Said again, not "no run here": by attach and by stop, each time they are asked.
        for command in ["attach", "stop", "attach"] {
            let told = try await ChildProcess.run(ChildProcess.uploaderBinary, [command, id], environment: environment)
            #expect(told.status == 4 && told.standardError == said, "\(command): \(told.standardError)")
        }
        #expect(try await run(id) == nil, "still listed once")

        let rerun = try await ChildProcess.run(
            ChildProcess.uploaderBinary, arguments + ["--no-tui", "--json"], environment: environment)
        #expect(rerun.status == 0, "\(rerun.standardError)")
        let events = try ndjson(rerun.standardOutput)
        #expect(events.contains { $0["event"] as? String == "skipped" }, "the journal resumes: \(rerun.standardOutput)")
        let stored = await server.server.statistics.storedByPath.filter { !$0.key.hasSuffix("manifest.json") }
        #expect(stored.count == 6 && stored.values.allSatisfy { $0 == 1 }, "\(stored)")
        await server.stop()
    }

    @Test("a run killed with -9 as soon as --detach returns is listed gone with the bytes it had to send")
    func killedAtOnce() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("detach-kill-at-once")
        for i in 0..<3 { try folder.write("q\(i).png", size: 100_000, seed: UInt64(90 + i), prefix: Magic.png) }
        let started = try await ChildProcess.run(
            ChildProcess.uploaderBinary,
            [folder.path, "--to", server.url("/datasets/kill-at-once/images"), "--limit-rate", "10K", "--detach"],
            environment: environment)
        let id = try #require(detachedID(started.standardOutput), "\(started.standardError)")
        // Read from the record, not ps: ps would ask the run, and the kill should come before the record's first
        // update from the batch.
        let data = FileManager.default.contents(atPath: runtime.path + "/uploader-tui/\(id).json") ?? Data()
        let info = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["info"] as? [String: Any]
        let pid = try #require(info?["pid"] as? Int, "\(String(decoding: data, as: UTF8.self))")
        kill(pid_t(pid), SIGKILL)
        try await waitUntil("the run process gone") { kill(pid_t(pid), 0) != 0 }
        let listed = try await ChildProcess.run(ChildProcess.uploaderBinary, ["ps"], environment: environment)
        let line = listed.standardOutput.split(separator: "\n").first { $0.hasPrefix(id) }.map(String.init) ?? ""
        #expect(line.contains("gone") && line.contains("of 293.0 KiB"), "\(listed.standardOutput)")
        #expect(!line.contains("0 B of 0 B"), "\(line)")
        await server.stop()
    }

    @Test("a screen killed with -9 leaves the run going: it ends on its own, every file once")
    func screenKilled() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("detach-screen-kill")
        // 16 s of uploading, so the run is still going when a loaded machine gets to `ps` after the kill.
        for i in 0..<4 { try folder.write("q\(i).png", size: 200_000, seed: UInt64(70 + i), prefix: Magic.png) }
        let upload = quoted([
            ChildProcess.uploaderBinary, folder.path, "--to", server.url("/datasets/screen-kill/images"),
            "--limit-rate", "50K", "--concurrency", "1", "--journal", folder.path + ".journal",
        ])
        var tmuxEnvironment = ["LANG": "C.UTF-8", "TERM": "xterm-256color"]
        tmuxEnvironment.merge(environment) { $1 }
        let tmux = try await TmuxDriver.start(command: "\(upload); sleep 60", environment: tmuxEnvironment)
        defer { Task { await tmux.stop() } }
        _ = try await tmux.waitFor(timeout: .seconds(20)) { row($0, "q0.png").contains("uploading") }
        let screen = try #require(processes(naming: folder.path).first { !$0.arguments.contains("_serve-run") })
        kill(screen.pid, SIGKILL)
        let id = try #require(try await ps().first { $0["source"] as? String == folder.path }?["id"] as? String)
        #expect(try await run(id)?["state"] as? String == "running")
        try await waitUntil("the run's end", timeout: .seconds(60), every: .milliseconds(200)) {
            try await run(id)?["state"] as? String == "done"
        }
        let stored = await server.server.statistics.storedByPath.filter { !$0.key.hasSuffix("manifest.json") }
        #expect(stored.count == 4 && stored.values.allSatisfy { $0 == 1 }, "\(stored)")
        await server.stop()
    }

    /// Processes whose command line holds `text`, read from /proc.
    func processes(naming text: String) -> [(pid: pid_t, arguments: [String])] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = pid_t(entry),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { return nil }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard arguments.first?.hasSuffix("uploader-tui") == true, arguments.contains(text) else { return nil }
            return (pid, arguments)
        }
    }

    @Test("another user is refused: by the folder's owner check, and by the run itself (SO_PEERCRED)")
    func otherUser() async throws {
        guard getuid() == 0 else {
            print("skipped: needs root to run a client as another user with setpriv")
            return
        }
        let server = try await ServerFixture.start()
        let folder = try TestFolder("detach-uid")
        for i in 0..<2 { try folder.write("u\(i).png", size: 200_000, seed: UInt64(90 + i), prefix: Magic.png) }
        let started = try await ChildProcess.run(
            ChildProcess.uploaderBinary,
            [
                // 10 s a file, so the run outlasts the test's steps on a loaded machine; the stop then ends it at once.
                folder.path, "--to", server.url("/datasets/uid/images"), "--limit-rate", "20K", "--grace", "0",
                "--detach", "--journal", folder.path + ".journal",
            ], environment: environment)
        let id = try #require(detachedID(started.standardOutput), "\(started.standardError)")
        let runs = runtime.path + "/uploader-tui"
        // Past the file modes (so they are not what refuses), to the checks of who is who.
        chmod(runtime.path, 0o755)
        chmod(runs, 0o755)
        chmod(runs + "/\(id).sock", 0o666)
        let binary = try copyForNobody()
        defer { unlink(binary) }
        let nobody = ["--reuid=65534", "--regid=65534", "--clear-groups"]
        let attach = try await ChildProcess.run(
            "/usr/bin/setpriv", nobody + [binary, "attach", id], environment: environment)
        #expect(attach.status == 5, "\(attach.standardError)")
        #expect(attach.standardError.contains("belongs to another user"), "\(attach.standardError)")
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX)
            s.connect(sys.argv[1])
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            sys.stdout.write(data.decode())
            """
        let raw = try await ChildProcess.run(
            "/usr/bin/setpriv", nobody + ["/usr/bin/python3", "-c", script, runs + "/\(id).sock"])
        #expect(raw.status == 0, "\(raw.standardError)")
        // The run speaks first: to another uid only its refusal, never the hello with the run's figures.
        let line = try #require(raw.standardOutput.split(separator: "\n").first, "\(raw.standardOutput)")
        let refusal = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(refusal["type"] as? String == "refused")
        #expect(refusal["text"] as? String == "this run belongs to another user")
        #expect(raw.standardOutput.split(separator: "\n").count == 1, "\(raw.standardOutput)")
        chmod(runs, 0o700)
        let stop = try await ChildProcess.run(ChildProcess.uploaderBinary, ["stop", id], environment: environment)
        #expect(stop.status == 0, "\(stop.standardError)")
        await server.stop()
    }

    /// The binary where uid 65534 may run it (the build folder may be closed to it).
    func copyForNobody() throws -> String {
        let path = "/tmp/uploader-tui-nobody-\(getpid())"
        if !FileManager.default.fileExists(atPath: path) {
            try FileManager.default.copyItem(atPath: ChildProcess.uploaderBinary, toPath: path)
        }
        chmod(path, 0o755)
        return path
    }
}
