import Foundation
import Testing

/// Issue 5 with the real binary: the journal, kills, signals and the ways out of a bad journal.
@Suite("Nothing lost: journal and resume", .serialized)
struct ResumeTests {
    let binary = ChildProcess.uploaderBinary

    /// With `--batch`, a rerun sends the files of a killed request in one request again: the same Idempotency-Key.
    @Test(
        "kill -9 at five points of a 200-file run, rerun each time: 200 intact files, none sent again once done",
        arguments: [1, 8])
    func killNineAndRerun(batch: Int) async throws {
        let server = try await ServerFixture.start { $0.modelingDelay = 0.02 }
        let folder = try TestFolder("kill-\(batch)")
        var sources: [String: String] = [:]
        for i in 0..<200 {
            let name = String(format: "img-%03d.jpg", i)
            sources[name] = try folder.write(name, size: 8_000 + i * 131, seed: UInt64(i), prefix: Magic.jpeg)
        }
        let journal = folder.path + ".journal.sqlite"
        let arguments = [
            folder.path, "--to", server.url("/datasets/kill/images"), "--json", "--journal", journal,
            "--concurrency", "4", "--batch", "\(batch)",
        ]
        if batch > 1 {
            // Two files done before, out of the scan's order: the runs after them must still cut the same groups.
            let first = try await ChildProcess.run(
                binary, [sources["img-003.jpg"]!, sources["img-010.jpg"]!] + arguments.dropFirst())
            #expect(first.status == 0, "\(first.standardError)")
        }
        var kills: [(done: Set<String>, stored: [String: Int])] = []
        for threshold in [12, 50, 90, 130, 170] {
            let child = try ChildProcess.start(binary, arguments)
            try await waitUntil("\(threshold) files stored") {
                await server.server.statistics.filesStored >= threshold
            }
            child.signal(SIGKILL)
            #expect(await child.wait().status == 128 + SIGKILL)
            let done = try await journalDonePaths(journal)
            kills.append((done, await server.server.statistics.storedByPath))
        }
        #expect(kills.last!.done.count > kills.first!.done.count, "the journal grew across kills")
        // The killed run left no record of the files it had not reached: --retry-failed takes every file not done,
        // also after another run to the destination ended meanwhile (one file of the folder, sent alone: under
        // --batch its key would be another than its group's).
        var done = kills.last!.done
        if batch == 1 {
            let pending = try #require(sources.values.sorted().first { !done.contains($0) })
            let one = try await ChildProcess.run(binary, [pending] + arguments.dropFirst())
            #expect(one.status == 0, "\(one.standardError)")
            done.insert(pending)
        }
        let retry = try await ChildProcess.run(binary, arguments + ["--retry-failed", "--dry-run"])
        let planned = try ndjson(retry.standardOutput).filter { $0["event"] as? String == "planned" }
        #expect(planned.count == 200 - done.count, "\(retry.standardError)")
        #expect(planned.allSatisfy { $0["journal"] as? String == "retry" })

        let last = try await ChildProcess.run(binary, arguments)
        #expect(last.status == 0, "\(last.standardError)")
        let summary = try #require(try ndjson(last.standardOutput).last)
        #expect(summary["skipped"] as? Int == done.count)
        #expect((summary["done"] as? Int ?? 0) + (summary["skipped"] as? Int ?? 0) == 200)

        let stored = await server.server.statistics.storedByPath
        let names = try FileManager.default.contentsOfDirectory(atPath: server.stored("datasets/kill"))
            .filter { $0.hasPrefix("img-") }
        #expect(names.count == 200)
        for (name, source) in sources {
            #expect(try sha256(ofFile: server.stored("datasets/kill/\(name)")) == sha256(ofFile: source), "\(name)")
        }
        // Files in flight at a kill had reached the server: their Idempotency-Key gets the first answer back.
        #expect(stored.count == 200)
        let twice = stored.filter { $0.value > 1 }
        if batch == 1 {
            #expect(twice.isEmpty, "stored twice: \(twice)")
        } else {
            // A form cut by a kill leaves its first parts stored (the server keeps them) and never got an answer
            // its key could repeat: those come again. A whole group twice would be a request sent again.
            let groups = Dictionary(grouping: stored) {
                Int($0.key.dropFirst("datasets/kill/img-".count).prefix(3))! / batch
            }
            let resent = groups.filter { $0.value.allSatisfy { $0.value > 1 } }.keys.sorted()
            #expect(resent.isEmpty, "groups stored twice whole: \(resent); twice: \(twice)")
        }
        #expect(await server.server.statistics.idempotentReplays >= 1)
        for (index, kill) in kills.enumerated() {
            for path in kill.done {
                let key = "datasets/kill/" + (path as NSString).lastPathComponent
                #expect(stored[key] == kill.stored[key], "\(key) was sent again after kill \(index) had it done")
            }
        }
        await server.stop()
    }

    /// SIGHUP: the SSH session of a headless run (`… | tee log`) is gone.
    @Test(
        "SIGTERM or SIGHUP stops the run with exit 130, its summary and a flushed journal; the rerun skips what was done",
        arguments: [SIGTERM, SIGHUP])
    func sigtermFlushesJournal(_ signal: Int32) async throws {
        let server = try await ServerFixture.start { $0.modelingDelay = 0.05 }
        let folder = try TestFolder("term-\(signal)")
        for i in 0..<40 { try folder.write("t-\(i).jpg", size: 10_000 + i, seed: UInt64(i), prefix: Magic.jpeg) }
        let journal = folder.path + ".journal.sqlite"
        let arguments = [folder.path, "--to", server.url("/datasets/term/images"), "--json", "--journal", journal]
        let child = try ChildProcess.start(binary, arguments)
        try await waitUntil("8 files stored") { await server.server.statistics.filesStored >= 8 }
        child.signal(signal)
        let stopped = await child.wait()
        #expect(stopped.status == 130, "\(stopped.standardError)")
        #expect(try ndjson(stopped.standardOutput).last?["event"] as? String == "summary")
        let reported = try ndjson(stopped.standardOutput).filter { $0["event"] as? String == "done" }.count
        let done = try await journalDonePaths(journal)
        #expect(done.count == reported, "every done file the run reported is in the journal")
        // Four at a time: the 8th file could start only after four answers came back.
        #expect(done.count >= 4)

        let rerun = try await ChildProcess.run(binary, arguments)
        #expect(rerun.status == 0)
        let summary = try #require(try ndjson(rerun.standardOutput).last)
        #expect(summary["skipped"] as? Int == done.count)
        #expect(summary["done"] as? Int == 40 - done.count)
        let skippedEvents = try ndjson(rerun.standardOutput).filter { $0["event"] as? String == "skipped" }
        #expect(skippedEvents.count == done.count)
        await server.stop()
    }

    @Test("URLs that differ only in what redacting hides are two destinations to the journal, which keeps no secret")
    func redactedDestinationsApart() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("apart")
        try folder.write("a.jpg", size: 3_000, seed: 1, prefix: Magic.jpeg)
        let journal = folder.path + ".journal.sqlite"
        var skipped: [Int] = []
        for key in ["s3cr3tA", "s3cr3tB", "s3cr3tA"] {
            let run = try await ChildProcess.run(
                binary, [folder.path, "--put", server.url("/files/apart/?key=" + key), "--json", "--journal", journal])
            #expect(run.status == 0, "\(run.standardError)")
            skipped.append(try #require(try ndjson(run.standardOutput).last?["skipped"] as? Int))
        }
        #expect(skipped == [0, 0, 1])
        #expect(await server.server.statistics.storedByPath == ["files/apart/a.jpg": 2])
        let destinations = try await journalQuery(journal, "SELECT destination FROM files")
        #expect(destinations.count == 2)
        #expect(destinations.allSatisfy { $0.contains("key=REDACTED #") && !$0.contains("s3cr3t") }, "\(destinations)")
        await server.stop()
    }

    @Test(
        "a refused token stops the batch at the first 401; --retry-failed sends the failed and the cancelled files, no others; --no-resume uploads all; history lists the runs"
    )
    func retryFailedAndHistory() async throws {
        let server = try await ServerFixture.start { $0.token = "right" }
        let folder = try TestFolder("again")
        for i in 0..<4 { try folder.write("a-\(i).jpg", size: 5_000, seed: UInt64(i), prefix: Magic.jpeg) }
        let journal = folder.path + ".journal.sqlite"
        let base = [folder.path, "--to", server.url("/datasets/again/images"), "--json", "--journal", journal]

        let first = try await ChildProcess.run(binary, base + ["--token", "right"])
        #expect(first.status == 0)
        for i in 0..<3 { try folder.write("b-\(i).jpg", size: 6_000, seed: UInt64(10 + i), prefix: Magic.jpeg) }
        let requestsBefore = await server.server.statistics.requests
        let refused = try await ChildProcess.run(binary, base + ["--token", "wrong", "--concurrency", "1"])
        #expect(refused.status == 1)
        var summary = try #require(try ndjson(refused.standardOutput).last)
        #expect(summary["skipped"] as? Int == 4)
        // The rest would meet the same refusal: one request, not one per file.
        #expect(summary["failed"] as? Int == 1 && summary["cancelled"] as? Int == 2, "\(summary)")
        #expect(await server.server.statistics.requests == requestsBefore + 1)
        #expect(
            refused.standardError.contains("stopped at b-0.jpg: HTTP 401 unauthorized"), "\(refused.standardError)")
        let afterRefusal = try await ChildProcess.run(binary, ["history", "--journal", journal])
        #expect(afterRefusal.standardOutput.contains("0 done, 1 failed, 2 cancelled, 4 skipped"))
        #expect(afterRefusal.standardOutput.contains("failed  " + folder.path + "/b-0.jpg: HTTP 401"))

        try folder.write("c-new.jpg", size: 7_000, seed: 20, prefix: Magic.jpeg)
        // The dry run previews the files the run takes.
        let preview = try await ChildProcess.run(binary, base + ["--token", "right", "--retry-failed", "--dry-run"])
        #expect(preview.status == 0, "\(preview.standardError)")
        let planned = try ndjson(preview.standardOutput).filter { $0["event"] as? String == "planned" }
        #expect(Set(planned.compactMap { $0["file"] as? String }) == ["b-0.jpg", "b-1.jpg", "b-2.jpg"])
        let before = await server.server.statistics.filesStored
        let retried = try await ChildProcess.run(binary, base + ["--token", "right", "--retry-failed"])
        #expect(retried.status == 0, "\(retried.standardError)")
        let names = Set(try ndjson(retried.standardOutput).compactMap { $0["file"] as? String })
        #expect(names == ["b-0.jpg", "b-1.jpg", "b-2.jpg"])
        // Counted out of the files this run took, not out of every file scanned ("[3/8] done").
        #expect(retried.standardError.contains("[3/3] done"), "\(retried.standardError)")
        #expect(await server.server.statistics.filesStored == before + 3)

        let beforeNothing = try await ChildProcess.run(binary, ["history", "--journal", journal])
        let nothing = try await ChildProcess.run(binary, base + ["--token", "right", "--retry-failed"])
        #expect(nothing.status == 3)
        #expect(nothing.standardError.contains("no file failed or was left unfinished by an earlier run to "))
        // Nothing was sent: no run is recorded, as for an empty folder.
        let afterNothing = try await ChildProcess.run(binary, ["history", "--journal", journal])
        #expect(afterNothing.standardOutput == beforeNothing.standardOutput)
        #expect(!afterNothing.standardOutput.contains("0 done, 0 failed, 0 cancelled, 0 skipped"))
        let nothingPlanned = try await ChildProcess.run(
            binary, base + ["--token", "right", "--retry-failed", "--dry-run"])
        #expect(nothingPlanned.status == 3)
        #expect(nothingPlanned.standardError.contains("no file failed or was left unfinished by an earlier run to "))

        let everything = try await ChildProcess.run(binary, base + ["--token", "right", "--no-resume"])
        #expect(everything.status == 0)
        summary = try #require(try ndjson(everything.standardOutput).last)
        #expect(summary["done"] as? Int == 8)

        let history = try await ChildProcess.run(binary, ["history", "--journal", journal])
        #expect(history.status == 0, "\(history.standardError)")
        let lines = history.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("run ") }.count == 3, "\(history.standardOutput)")
        #expect(history.standardOutput.contains("3 done, 0 failed"), "the retry run")
        #expect(!history.standardOutput.contains("failed  "), "a failure fixed later is no longer listed")
        #expect(!history.standardOutput.contains("wrong"))
        await server.stop()
    }

    @Test(
        """
        history says a run still going is running, and one killed did not finish; a dry run reads it meanwhile, \
        and a run to another destination shares the journal
        """)
    func historyOfARunningRun() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("history-running")
        try folder.write("done.bin", size: 1_000, seed: 2)
        let journal = folder.path + ".journal.sqlite"
        let first = try await ChildProcess.run(
            binary, [folder.path, "--put", server.url("/files/r/"), "--no-tui", "--journal", journal])
        #expect(first.status == 0, "\(first.standardError)")
        try folder.write("slow.bin", size: 400_000, seed: 3)
        let child = try ChildProcess.start(
            binary,
            [folder.path, "--put", server.url("/files/r/"), "--json", "--journal", journal, "--bwlimit", "20K"])
        try await waitUntil("the upload's start") {
            (try? ndjson(child.standardOutputSoFar))?.contains { $0["event"] as? String == "started" } == true
        }
        // A run to another destination shares the journal meanwhile, and is the newest run when the rest reads it.
        let other = try await ChildProcess.run(
            binary, [folder.path, "--put", server.url("/files/s/"), "--no-tui", "--journal", journal])
        #expect(other.status == 0, "\(other.standardError)")
        #expect(FileManager.default.fileExists(atPath: server.root.path + "/files/s/slow.bin"))
        let during = try await ChildProcess.run(binary, ["history", "--journal", journal])
        let runLines = during.standardOutput.split(separator: "\n").filter { $0.hasPrefix("run ") }
        #expect(runLines.count == 3, "\(during.standardOutput)")
        #expect(runLines.first?.hasSuffix("2 done, 0 failed, 0 cancelled, 0 skipped") == true, "\(runLines)")
        #expect(runLines.dropFirst().first?.hasSuffix("(running)") == true, "\(runLines)")
        // A dry run records nothing: it reads the journal beside the run that holds it.
        let preview = try await ChildProcess.run(
            binary, [folder.path, "--put", server.url("/files/r/"), "--json", "--journal", journal, "--dry-run"])
        #expect(preview.status == 0, "\(preview.standardError)")
        let planned = try ndjson(preview.standardOutput).filter { $0["event"] as? String == "planned" }
        #expect(planned.first { $0["file"] as? String == "done.bin" }?["would_send"] as? Bool == false)
        #expect(planned.first { $0["file"] as? String == "slow.bin" }?["would_send"] as? Bool == true)
        // The run going on is no run cut off: nothing an earlier run left unfinished.
        let retry = try await ChildProcess.run(
            binary,
            [
                folder.path, "--put", server.url("/files/r/"), "--json", "--journal", journal, "--dry-run",
                "--retry-failed",
            ])
        #expect(retry.status == 3, "\(retry.standardOutput)")
        child.signal(SIGKILL)
        _ = await child.wait()
        let after = try await ChildProcess.run(binary, ["history", "--journal", journal])
        #expect(after.standardOutput.contains("(did not finish)"), "\(after.standardOutput)")
        await server.stop()
    }

    @Test("a form stores files by name: one sent as x.txt from its folder is sent again as c/x.txt from the parent")
    func sameFileUnderAnotherName() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("renamed-form")
        try folder.write("c/x.txt", size: 100, seed: 1)
        let journal = ["--journal", folder.path + ".journal.sqlite", "--no-tui"]
        let target = ["--to", server.url("/datasets/names/images")]
        let inner = try await ChildProcess.run(binary, [folder.path + "/c"] + target + journal)
        #expect(inner.status == 0, "\(inner.standardError)")
        let outer = try await ChildProcess.run(binary, [folder.path, "-r"] + target + journal)
        #expect(outer.status == 0 && outer.standardError.contains("1 done"), "\(outer.standardError)")
        let stored = await server.server.statistics.storedByPath
        #expect(stored["datasets/names/x.txt"] == 1 && stored["datasets/names/c/x.txt"] == 1, "\(stored)")
        let again = try await ChildProcess.run(binary, [folder.path, "-r"] + target + journal)
        #expect(again.standardError.contains("1 skipped"), "\(again.standardError)")
        await server.stop()
    }

    @Test("a journal removed while the run writes it is said at once and in the exit code: its reruns would resend")
    func journalRemovedDuringRun() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("journal-removed")
        try folder.write("slow.bin", size: 300_000, seed: 3)
        let journal = folder.path + ".journal.sqlite"
        let child = try ChildProcess.start(
            binary,
            [folder.path, "--put", server.url("/files/gone/"), "--json", "--journal", journal, "--bwlimit", "200K"])
        try await waitUntil("the upload's start") {
            (try? ndjson(child.standardOutputSoFar))?.contains { $0["event"] as? String == "started" } == true
        }
        for suffix in ["", "-wal", "-shm", ".lock"] { unlink(journal + suffix) }
        let outcome = await child.wait()
        #expect(outcome.status == 1, "\(outcome.standardError)")
        #expect(
            outcome.standardError.contains("removed or replaced while this run wrote it"), "\(outcome.standardError)")
        let summary = try #require(try ndjson(outcome.standardOutput).last)
        #expect(summary["done"] as? Int == 1 && summary["journal_error"] != nil)
        await server.stop()
    }

    @Test("the journal keeps each file's XXH3-128: hashed while sending a PUT, after the answer for a form")
    func contentHashes() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("hashes")
        for i in 0..<3 { try folder.write("h-\(i).jpg", size: 300_000 + i, seed: UInt64(40 + i), prefix: Magic.jpeg) }
        let journal = folder.path + ".journal.sqlite"
        for target in [["--put", server.url("/files/h/")], ["--to", server.url("/datasets/h/images")]] {
            let outcome = try await ChildProcess.run(binary, [folder.path, "--no-tui", "--journal", journal] + target)
            #expect(outcome.status == 0, "\(outcome.standardError)")
        }
        for i in 0..<3 {
            let path = folder.path + "/h-\(i).jpg"
            let expected = try await ChildProcess.run("/usr/bin/xxhsum", ["-H2", path]).standardOutput
                .split(separator: " ").first.map(String.init)
            let stored = try await journalQuery(
                journal, "SELECT content_hash FROM files WHERE path = '\(path)' ORDER BY destination")
            #expect(stored.count == 2 && stored.allSatisfy { $0 == expected }, "\(stored) vs \(expected ?? "-")")
        }
        await server.stop()
    }

    @Test("a journal that is not SQLite, is in use, or cannot be created: one line naming it and the way out, exit 2")
    func badJournals() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("badjournal")
        try folder.write("x.jpg", size: 400_000, seed: 1, prefix: Magic.jpeg)
        let target = ["--to", server.url("/datasets/bad/images"), "--no-tui"]

        let text = folder.path + ".notes.sqlite"
        try Data("these are my notes, not a database\n".utf8).write(to: URL(fileURLWithPath: text))
        let notSQLite = try await ChildProcess.run(binary, [folder.path, "--journal", text] + target)
        #expect(notSQLite.status == 2)
        #expect(notSQLite.standardError.split(separator: "\n").count == 1, "\(notSQLite.standardError)")
        #expect(notSQLite.standardError.contains(text))
        #expect(notSQLite.standardError.contains("--no-resume"))
        #expect(try String(contentsOfFile: text, encoding: .utf8) == "these are my notes, not a database\n")
        // history has no --no-resume: its way out is another journal.
        let history = try await ChildProcess.run(binary, ["history", "--journal", text])
        #expect(history.status == 2)
        #expect(
            history.standardError.hasSuffix("; move it away, or pass --journal PATH\n"),
            "\(history.standardError)")

        let unwritable = try await ChildProcess.run(binary, [folder.path, "--journal", "/dev/null/j.sqlite"] + target)
        #expect(unwritable.status == 2)
        #expect(unwritable.standardError.contains("/dev/null/j.sqlite"))
        #expect(unwritable.standardError.split(separator: "\n").count == 1)

        // A folder named with --journal is never created (a typo would leave a stray tree); the default's is.
        let typo = folder.path + ".no-such/dir"
        let missing = try await ChildProcess.run(binary, [folder.path, "--journal", typo + "/j.sqlite"] + target)
        #expect(missing.status == 2)
        #expect(
            missing.standardError
                == "uploader-tui: --journal \(typo)/j.sqlite: no folder \(typo) (create it first)\n")
        #expect(!FileManager.default.fileExists(atPath: folder.path + ".no-such"))

        let shared = folder.path + ".shared.sqlite"
        // At 4 KiB/s the first run cannot finish its 400 KB file however slowly the second one starts.
        let slow = try ChildProcess.start(binary, [folder.path, "--journal", shared, "--limit-rate", "4K"] + target)
        try await waitUntil("the first run's request") { await server.server.statistics.requests >= 1 }
        let second = try await ChildProcess.run(binary, [folder.path, "--journal", shared] + target)
        // A link to the journal is the journal: its lock is the one beside the file, not beside the link.
        let link = folder.path + ".link.sqlite"
        #expect(symlink(shared, link) == 0)
        let throughLink = try await ChildProcess.run(binary, [folder.path, "--journal", link] + target)
        // A hard link has a lock file of its own: the database itself is locked too.
        let hard = folder.path + ".hard.sqlite"
        #expect(Glibc.link(shared, hard) == 0)
        let throughHardLink = try await ChildProcess.run(binary, [folder.path, "--journal", hard] + target)
        slow.signal(SIGKILL)
        _ = await slow.wait()
        #expect(second.status == 2)
        #expect(second.standardError.contains(shared))
        #expect(second.standardError.contains("--journal"))
        #expect(throughLink.status == 2 && throughLink.standardError.contains("in use"), "\(throughLink.standardError)")
        #expect(
            throughHardLink.status == 2 && throughHardLink.standardError.contains("in use"),
            "\(throughHardLink.standardError)")
        #expect(await server.server.statistics.filesStored == 0, "nothing was sent by the refused runs")
        // A journal first made through a link to where it will be is owner-only, as any journal.
        let made = folder.path + ".made.sqlite"
        #expect(symlink(made, folder.path + ".to-made.sqlite") == 0)
        let first = try await ChildProcess.run(
            binary, [folder.path, "--journal", folder.path + ".to-made.sqlite"] + target)
        #expect(first.status == 0, "\(first.standardError)")
        var info = stat()
        #expect(stat(made, &info) == 0 && info.st_mode & 0o077 == 0, "mode \(String(info.st_mode, radix: 8))")

        let state = folder.path + ".state"
        let byDefault = try await ChildProcess.run(
            binary, [folder.path] + target, environment: ["XDG_STATE_HOME": state])
        #expect(byDefault.status == 0, "\(byDefault.standardError)")
        #expect(FileManager.default.fileExists(atPath: state + "/uploader-tui/journal.sqlite"))
        await server.stop()
    }
}
