import Foundation
import Testing

/// Issue 15 with the real binary and the reference server: nothing sent twice, nothing sent that was not meant.
@Suite("Nothing sent twice, nothing sent that was not meant", .serialized)
struct NothingSentTwiceTests {
    let binary = ChildProcess.uploaderBinary

    @Test("SIGINT at three points of a 200-file run: the uploads in flight finish, exit 130; reruns store each once")
    func sigintFinishesInFlight() async throws {
        // Each answer takes 0.3 s, so a signal always finds four files stored whose answers are still due.
        let server = try await ServerFixture.start { $0.modelingDelay = 0.3 }
        let folder = try TestFolder("sigint")
        for i in 0..<200 {
            try folder.write(String(format: "p-%03d.jpg", i), size: 4_000 + i * 17, seed: UInt64(i), prefix: Magic.jpeg)
        }
        let journal = folder.path + ".journal.sqlite"
        let arguments = [
            folder.path, "--to", server.url("/datasets/int/images"), "--json", "--journal", journal,
            "--concurrency", "4",
        ]
        for threshold in [8, 40, 80] {
            let child = try ChildProcess.start(binary, arguments)
            try await waitUntil("\(threshold) files stored") {
                await server.server.statistics.filesStored >= threshold
            }
            child.signal(SIGINT)
            let stopped = await child.wait()
            #expect(stopped.status == 130, "\(stopped.standardError)")
            #expect(
                stopped.standardError.contains(" — Ctrl-C again to abort"), "\(stopped.standardError)")
            let events = try ndjson(stopped.standardOutput)
            #expect(events.contains { $0["event"] as? String == "cancelled" }, "queued files end cancelled")
            #expect(events.last?["event"] as? String == "summary")
            #expect(events.last?["exit_code"] as? Int == 130)
            // Every file the server stored was answered and recorded before the exit.
            let done = try await journalDonePaths(journal)
            let storedNow = await server.server.statistics.storedByPath.count
            #expect(done.count == storedNow, "stored = recorded done")
        }
        let last = try await ChildProcess.run(binary, arguments)
        #expect(last.status == 0, "\(last.standardError)")
        let stored = await server.server.statistics.storedByPath
        #expect(stored.count == 200)
        #expect(stored.values.allSatisfy { $0 == 1 }, "stored twice: \(stored.filter { $0.value > 1 })")
        await server.stop()
    }

    @Test("a second SIGINT aborts at once with 130; the rerun gets the first answers back instead of storing again")
    func secondSigintAborts() async throws {
        let server = try await ServerFixture.start { $0.modelingDelay = 2 }
        let folder = try TestFolder("abort")
        for i in 0..<6 { try folder.write("a-\(i).jpg", size: 5_000, seed: UInt64(i), prefix: Magic.jpeg) }
        let journal = folder.path + ".journal.sqlite"
        let arguments = [folder.path, "--to", server.url("/datasets/ab/images"), "--json", "--journal", journal]
        let child = try ChildProcess.start(binary, arguments)
        try await waitUntil("4 files stored") { await server.server.statistics.filesStored >= 4 }
        child.signal(SIGINT)
        try await waitUntil("the stop announced") { child.standardErrorSoFar.contains("finishing 4 uploads") }
        child.signal(SIGINT)
        let stopped = await child.wait()
        #expect(stopped.status == 130)
        #expect(try await journalDonePaths(journal).isEmpty)
        // Aborted, every file still ends with its event, and the summary says how the run ended.
        let events = try ndjson(stopped.standardOutput)
        let ends = Set(["done", "failed", "cancelled"])
        for i in 0..<6 {
            let last = events.last { $0["file"] as? String == "a-\(i).jpg" && $0["event"] as? String != "progress" }
            #expect(last?["event"] as? String == "cancelled", "a-\(i).jpg: \(String(describing: last))")
        }
        #expect(events.filter { ends.contains($0["event"] as? String ?? "") }.count == 6)
        #expect(events.last?["event"] as? String == "summary")
        #expect(events.last?["exit_code"] as? Int == 130)

        // The four aborted requests reached the server: while it still processes them the rerun gets 409 and
        // Retry-After, then (or at once, on a slow machine) their first answers, replayed.
        let rerun = try await ChildProcess.run(binary, arguments)
        #expect(rerun.status == 0, "\(rerun.standardError)")
        let stats = await server.server.statistics
        #expect(stats.storedByPath.count == 6)
        #expect(stats.storedByPath.values.allSatisfy { $0 == 1 }, "\(stats.storedByPath)")
        #expect(stats.idempotentReplays == 4)
        await server.stop()
    }

    @Test("a rerun while the server still processes the interrupted requests waits them out, spending no retries")
    func rerunWaitsForKeyInProgress() async throws {
        // Far longer than the one retry's Retry-After: 1 the rerun is allowed.
        let server = try await ServerFixture.start { $0.modelingDelay = 6 }
        let folder = try TestFolder("in-progress")
        for i in 0..<2 { try folder.write("w-\(i).jpg", size: 5_000, seed: UInt64(i), prefix: Magic.jpeg) }
        let arguments = [
            folder.path, "--to", server.url("/datasets/ip/images"), "--json", "--journal",
            folder.path + ".journal.sqlite", "--retries", "1",
        ]
        let child = try ChildProcess.start(binary, arguments + ["--grace", "0"])
        try await waitUntil("both files stored") { await server.server.statistics.filesStored >= 2 }
        child.signal(SIGINT)
        #expect(await child.wait().status == 130)

        let rerun = try await ChildProcess.run(binary, arguments)
        #expect(rerun.status == 0, "\(rerun.standardError)")
        let stats = await server.server.statistics
        #expect(stats.idempotencyConflicts >= 2, "the rerun met the first requests still in progress")
        #expect(stats.idempotentReplays == 2)
        #expect(stats.storedByPath.count == 2)
        #expect(stats.storedByPath.values.allSatisfy { $0 == 1 }, "\(stats.storedByPath)")
        await server.stop()
    }

    @Test("the same file to the same place carries the same key: a rerun is answered, not stored; a changed file is")
    func idempotencyKeyAcrossRuns() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("idem")
        let path = try folder.write("cat.jpg", size: 30_000, seed: 5, prefix: Magic.jpeg)
        for target in [["--to", server.url("/datasets/idem/images")], ["--put", server.url("/files/idem/")]] {
            for _ in 0..<2 {
                let run = try await ChildProcess.run(binary, [path, "--no-resume", "--json"] + target)
                #expect(run.status == 0, "\(run.standardError)")
            }
        }
        var stats = await server.server.statistics
        #expect(stats.storedByPath["datasets/idem/cat.jpg"] == 1)
        #expect(stats.storedByPath["files/idem/cat.jpg"] == 1)
        #expect(stats.idempotentReplays == 2)

        // A changed file (new content and mtime) has a new key: stored again, not refused.
        try folder.write("cat.jpg", size: 30_001, seed: 6, prefix: Magic.jpeg)
        let changed = try await ChildProcess.run(
            binary, [path, "--no-resume", "--no-tui", "--to", server.url("/datasets/idem/images")])
        #expect(changed.status == 0, "\(changed.standardError)")
        // Other form fields or another file field make another request: stored, not refused as a reused key.
        for form in [["-F", "album=one"], ["-F", "album=two"], ["--field", "upload"]] {
            let other = try await ChildProcess.run(
                binary, [path, "--no-resume", "--no-tui", "--to", server.url("/datasets/idem/images")] + form)
            #expect(other.status == 0, "\(other.standardError)")
        }
        // Without keys, a rerun stores again.
        for _ in 0..<2 {
            let bare = try await ChildProcess.run(
                binary, [path, "--no-resume", "--no-tui", "--no-idempotency-key", "--put", server.url("/files/idem/")])
            #expect(bare.status == 0, "\(bare.standardError)")
        }
        stats = await server.server.statistics
        #expect(stats.storedByPath["datasets/idem/cat.jpg"] == 5)
        #expect(stats.storedByPath["files/idem/cat.jpg"] == 3)
        #expect(stats.idempotencyMismatches == 0)
        await server.stop()
    }

    @Test("a link to a file outside the folder is skipped with its reason and never sent; -L sends it and says so")
    func symlinkOutside() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("links")
        let outside = try TestFolder("outside")
        try folder.write("a.jpg", size: 2_000, seed: 1, prefix: Magic.jpeg)
        let secret = try outside.write("id_ed25519", size: 400, seed: 2)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/key.jpg", withDestinationPath: secret)
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/elsewhere", withDestinationPath: outside.path)
        let url = server.url("/datasets/links/images")

        let plain = try await ChildProcess.run(binary, [folder.path, "-r", "--to", url, "--json", "--no-resume"])
        #expect(plain.status == 0, "\(plain.standardError)")
        #expect(await server.server.statistics.storedByPath.keys.sorted() == ["datasets/links/a.jpg"])
        #expect(
            plain.standardError.contains(
                "skipped   key.jpg (symbolic link to \(secret), not followed (-L follows links))"))
        let events = try ndjson(plain.standardOutput)
        let skipped = events.filter { $0["event"] as? String == "skipped" }
        #expect(Set(skipped.compactMap { $0["file"] as? String }) == ["key.jpg", "elsewhere"])
        #expect(skipped.allSatisfy { ($0["reason"] as? String)?.hasPrefix("symbolic link to ") == true })
        #expect(events.last?["skipped"] as? Int == 2)

        let followed = try await ChildProcess.run(
            binary, [folder.path, "-r", "-L", "--to", url, "--json", "--no-resume"])
        #expect(followed.status == 0, "\(followed.standardError)")
        #expect(followed.standardError.contains("2 followed links point outside the folders given (-L)"))
        #expect(await server.server.statistics.storedByPath["datasets/links/key.jpg"] == 1)
        let stored = await server.server.statistics.storedByPath
        #expect(stored["datasets/links/elsewhere/id_ed25519"] == 1, "\(stored)")
        await server.stop()
    }

    @Test("bad URLs, negative numbers and a missing history journal: one line each, the documented exit code")
    func badInputs() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("bad")
        try folder.write("a.jpg", size: 100, seed: 1)
        let url = server.url("/datasets/x/images")
        let cases: [([String], String)] = [
            (
                ["--to", "http://127.0.0.1:99999/x"],
                "--to: invalid URL 'http://127.0.0.1:99999/x': port 99999 is not in 1-65535"
            ),
            (
                ["--to", "http://127.0.0.1:8080/a b"],
                "--to: invalid URL 'http://127.0.0.1:8080/a b': a space at position 24 must be percent-encoded (write %20)"
            ),
            (
                ["--put", "http://exa mple.com/"],
                "--put: invalid URL 'http://exa mple.com/': a space is not allowed in a host name"
            ),
            (["--to", "http://:80/x"], "--to: invalid URL 'http://:80/x': no host"),
            (
                ["--to", url, "--stall-timeout", "-1"],
                "--stall-timeout takes seconds, 0 or more (0 switches it off), not -1"
            ),
            (["--to", url, "--retries", "-2"], "--retries takes a number of retries, 0 or more, not -2"),
            (
                ["--to", url, "--concurrency", "-3"],
                "--concurrency takes auto or a number of requests from 1 to 64, not '-3'"
            ),
            (["--to", url, "--grace", "-1"], "--grace takes seconds, 0 or more (0 aborts at once), not -1"),
            (["--to", url, "--batch", "-2"], "--batch takes a number of files or 'all', not '-2'"),
            (
                ["--to", url, "--log-level", "verbose"],
                "--log-level takes debug, info, warning or error, not 'verbose'"
            ),
            (
                ["--to", url, "--limit-rate", "-5K"],
                "--limit-rate takes a size such as 500K or 2M (0 or off: none), not '-5K'"
            ),
            (
                ["--to", url, "--max-age", "-5d"],
                "--max-age takes an age such as 90s, 2h, 3d or a date such as 2024-06-01, not '-5d'"
            ),
        ]
        for (arguments, message) in cases {
            let outcome = try await ChildProcess.run(binary, [folder.path, "--no-tui"] + arguments)
            #expect(outcome.status == 2, "\(arguments): \(outcome.standardError)")
            #expect(outcome.standardError == "uploader-tui: \(message)\n", "\(arguments)")
        }
        #expect(await server.server.statistics.requests == 0)
        let missing = folder.path + "/no-such-journal.sqlite"
        let history = try await ChildProcess.run(binary, ["history", "--journal", missing])
        #expect(history.status == 0)
        #expect(history.standardOutput == "no runs yet (no journal at \(missing))\n")
        #expect(!FileManager.default.fileExists(atPath: missing))
        await server.stop()
    }
}
