import Foundation
import Testing

/// Issue 17: which files in the folders are sent, and in which order, by the real binary against the reference
/// server.
@Suite("Selection: --include, --exclude, --max-age, --min-age, --order-by", .serialized)
struct SelectionTests {
    let binary = ChildProcess.uploaderBinary

    /// Sets a file's modification time to `age` seconds ago.
    private func age(_ path: String, _ age: Double) {
        let then = Date().timeIntervalSince1970 - age
        var times = [timespec(tv_sec: Int(then), tv_nsec: 0), timespec(tv_sec: Int(then), tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, path, &times, 0)
    }

    @Test("a name that is not UTF-8 fails alone, beside a file named by its escaped spelling, which is sent")
    func nameNotUTF8BesideItsSpelling() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("not-utf8")
        try folder.write("caf\\xE9.txt", size: 10, seed: 1)
        let raw = Array((folder.path + "/caf").utf8) + [0xE9] + Array(".txt".utf8) + [0]
        let descriptor = raw.withUnsafeBufferPointer {
            $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        #expect(descriptor >= 0)
        close(descriptor)
        let outcome = try await ChildProcess.run(
            binary, [folder.path, "--put", server.url("/files/nu/"), "--json", "--no-resume"])
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let summary = try #require(try ndjson(outcome.standardOutput).last)
        #expect(summary["done"] as? Int == 1 && summary["failed"] as? Int == 1, "\(summary)")
        #expect(outcome.standardError.contains("name is not valid UTF-8"), "\(outcome.standardError)")
        await server.stop()
    }

    @Test("globs choose the files, an excluded folder is not sent, and the server receives them largest first")
    func globsAndOrder() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("select")
        try folder.write("small.jpg", size: 1_000, seed: 1)
        try folder.write("large.png", size: 9_000, seed: 2)
        try folder.write("notes.txt", size: 500, seed: 3)
        try folder.write("trip/medium.jpg", size: 5_000, seed: 4)
        try folder.write("raw/huge.jpg", size: 20_000, seed: 5)
        try folder.write("trip/raw/also.jpg", size: 300, seed: 6)
        let run = try await ChildProcess.run(
            binary,
            [
                folder.path, "-r", "--put", server.url("/files/sel/"), "--json", "--no-resume", "--concurrency", "1",
                "--include", "*.{jpg,png}", "--exclude", "raw/", "--order-by", "size,desc",
            ])
        #expect(run.status == 0, "\(run.standardError)")
        let events = try ndjson(run.standardOutput)
        let queued = events.filter { $0["event"] as? String == "queued" }.compactMap { $0["file"] as? String }
        #expect(queued == ["large.png", "trip/medium.jpg", "small.jpg"])
        let stored = await server.server.statistics.storedByPath
        #expect(Set(stored.keys) == ["files/sel/large.png", "files/sel/trip/medium.jpg", "files/sel/small.jpg"])
        #expect(run.standardError.contains("1 file left out by --include/--exclude"), "\(run.standardError)")
        #expect(run.standardError.contains("2 folders left out by --exclude"), "\(run.standardError)")
        await server.stop()
    }

    @Test("--max-age sends the recent files, --min-age the old ones; a file named on the command line always goes")
    func ages() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("ages")
        age(try folder.write("today.jpg", size: 100, seed: 1), 3600)
        age(try folder.write("last-week.jpg", size: 100, seed: 2), 8 * 86_400)
        let named = try TestFolder("named")
        let old = try named.write("old.jpg", size: 100, seed: 3)
        age(old, 400 * 86_400)
        let recent = try await ChildProcess.run(
            binary,
            [folder.path, old, "--put", server.url("/files/new/"), "--no-tui", "--no-resume", "--max-age", "2d"])
        #expect(recent.status == 0, "\(recent.standardError)")
        let older = try await ChildProcess.run(
            binary, [folder.path, "--put", server.url("/files/old/"), "--no-tui", "--no-resume", "--min-age", "1w"])
        #expect(older.status == 0, "\(older.standardError)")
        let stored = Set(await server.server.statistics.storedByPath.keys)
        #expect(stored == ["files/new/today.jpg", "files/new/old.jpg", "files/old/last-week.jpg"])
        #expect(recent.standardError.contains("1 file left out by --max-age/--min-age"))
        await server.stop()
    }

    @Test(
        "a pattern, age or order that cannot work is one line and exit 2, before anything is sent",
        arguments: [
            (["--include", "[abc"], "--include '[abc': '[' without a closing ']'"),
            (["--exclude", "{a,b"], "--exclude '{a,b': '{' without a closing '}'"),
            (
                ["--max-age", "soon"],
                "--max-age takes an age such as 90s, 2h, 3d or a date such as 2024-06-01, not 'soon'"
            ),
            (["--min-age", "2d", "--max-age", "1d"], "--min-age 2d is older than --max-age 1d: no file can be both"),
            (
                ["--order-by", "colour"],
                "--order-by takes name, size, mtime, optionally with ,asc or ,desc, not 'colour'"
            ),
        ])
    func badInput(arguments: [String], message: String) async throws {
        try await expectRefused(arguments, message: message)
    }
}
