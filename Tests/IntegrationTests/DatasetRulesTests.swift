import Foundation
import Testing

/// Issue 16, item 1: dataset rules stop a batch before any byte; repeated content is sent once.
@Suite("Dataset rules before any byte", .serialized)
struct DatasetRulesTests {
    let binary = ChildProcess.uploaderBinary

    @Test("a batch that breaks rules stops with one line per rule, exit 2, no request and no run in the journal")
    func rulesStopTheBatch() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("rules")
        for i in 0..<4 { try folder.write("cat-\(i).jpg", size: 2_000 + i, seed: UInt64(i), prefix: Magic.jpeg) }
        try folder.write("notes.txt", size: 300, seed: 9)
        try folder.write("big.png", size: 70_000, seed: 8, prefix: Magic.png)
        try folder.write("fake.png", size: 1_000, seed: 7, prefix: Magic.jpeg)
        let journal = folder.path + ".journal.sqlite"
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/r/images"), "--no-tui", "--journal", journal,
                "--types", "jpeg,png", "--min-files", "8", "--max-size", "64K",
            ])
        #expect(outcome.status == 2, "\(outcome.standardError)")
        #expect(
            outcome.standardError == """
                uploader-tui: --types jpeg,png: 1 file is not of these types: notes.txt (bytes of no known type, named as text/plain)
                uploader-tui: --min-files 8: 7 files, at least 8 needed
                uploader-tui: --max-size 64K: 1 file is larger: big.png (68.4 KiB)

                """)
        #expect(await server.server.statistics.requests == 0)
        #expect(!FileManager.default.fileExists(atPath: journal), "a journal made for the run is removed again")

        // Within the rules it runs; the name that disagrees with the bytes is a warning.
        let allowed = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/r/images"), "--no-tui", "--journal", journal,
                "--types", "jpeg,png,application/octet-stream", "--max-files", "7",
            ])
        #expect(allowed.status == 2)
        #expect(allowed.standardError.contains("is not a type the bytes can tell"))
        try FileManager.default.removeItem(atPath: folder.path + "/notes.txt")
        let sent = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/r/images"), "--no-tui", "--journal", journal,
                "--types", "jpeg, png", "--max-files", "6", "--max-total", "1M",
            ])
        #expect(sent.status == 0, "\(sent.standardError)")
        #expect(sent.standardError.contains("note: fake.png: the name says image/png, the bytes say image/jpeg"))
        #expect(await server.server.statistics.filesStored == 6)
        await server.stop()
    }

    @Test("--skip-duplicates sends repeated content once and names, for each copy, the file it repeats")
    func skipDuplicates() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("dups")
        try folder.write("a.jpg", size: 5_000, seed: 1, prefix: Magic.jpeg)
        try folder.write("b.jpg", size: 5_000, seed: 1, prefix: Magic.jpeg)  // the same bytes as a.jpg
        try folder.write("c.jpg", size: 5_000, seed: 2, prefix: Magic.jpeg)  // same size, other bytes
        try folder.write("d.jpg", size: 5_000, seed: 1, prefix: Magic.jpeg)
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/d/images"), "--json", "--no-resume", "--skip-duplicates",
                "--max-files", "2",
            ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("skipped   b.jpg (same content as a.jpg)"))
        #expect(outcome.standardError.contains("skipped   d.jpg (same content as a.jpg)"))
        #expect(outcome.standardError.contains("--skip-duplicates: 2 files repeat the content of earlier ones"))
        #expect(await server.server.statistics.storedByPath.keys.sorted() == ["datasets/d/a.jpg", "datasets/d/c.jpg"])
        let summary = try #require(try ndjson(outcome.standardOutput).last)
        #expect(summary["skipped"] as? Int == 2)

        // Two folders' files of one name: the copy names the one it repeats by its whole path.
        let other = try TestFolder("dups-other")
        try other.write("a.jpg", size: 5_000, seed: 1, prefix: Magic.jpeg)
        let twice = try await ChildProcess.run(
            binary,
            [folder.path, other.path, "--to", server.url("/datasets/e/images"), "--no-resume", "--skip-duplicates"])
        #expect(
            twice.standardError.contains("skipped   a.jpg (same content as \(folder.path)/a.jpg)"),
            "\(twice.standardError)")
        // Nothing of a skipped copy was sent.
        let skipped = try ndjson(outcome.standardOutput).filter { $0["event"] as? String == "skipped" }
        #expect(skipped.count == 2 && skipped.allSatisfy { $0["bytes_sent"] as? Int == 0 })
        await server.stop()
    }
}
