import Foundation
import Testing

/// Files that change between the scan and their upload: the path must still hold the scanned file, or nothing of
/// it is sent (a link put in its place would send whatever it points to).
@Suite("files replaced after the scan", .serialized)
struct ReplacedFileTests {
    let binary = ChildProcess.uploaderBinary

    func events(_ output: String, _ kind: String) throws -> [[String: Any]] {
        try ndjson(output).filter { $0["event"] as? String == kind }
    }

    /// Uploads `folder` (by PUT unless `destination` says otherwise) one request at a time under a cap, runs `replace` once the first file has started (the second
    /// is not open yet), and returns the run's outcome.
    func run(
        _ folder: TestFolder, to server: ServerFixture, destination: [String]? = nil, extra: [String] = [],
        replace: () throws -> Void
    ) async throws -> ChildProcess.Outcome {
        let child = try ChildProcess.start(
            binary,
            [
                folder.path, "--json", "--no-resume", "--concurrency", "1", "--bwlimit", "512K",
            ] + (destination ?? ["--put", server.url("/files/swap/")]) + extra)
        try await waitUntil("the first file's start") {
            (try? ndjson(child.standardOutputSoFar))?.contains { $0["event"] as? String == "started" } == true
        }
        try replace()
        // A run that hangs on what took the file's place fails the test instead of holding the suite.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            child.signal(SIGKILL)
        }
        defer { watchdog.cancel() }
        return await child.wait()
    }

    @Test("a link put in a file's place after the scan is not followed: the link's target is never sent")
    func linkSwappedIn() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("swap-link")
        let outside = try TestFolder("swap-secret")
        try folder.write("a-first.bin", size: 600_000, seed: 1)
        let photo = try folder.write("b.jpg", size: 9_000, seed: 2, prefix: Magic.jpeg)
        // The same size and modification time as the photo: only the file's identity tells them apart.
        let secret = try outside.write("id_ed25519", size: 9_000, seed: 3)
        _ = try await ChildProcess.run("/usr/bin/touch", ["-r", photo, secret])
        let outcome = try await run(folder, to: server) {
            try FileManager.default.removeItem(atPath: photo)
            try FileManager.default.createSymbolicLink(atPath: photo, withDestinationPath: secret)
        }
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let failed = try #require(try events(outcome.standardOutput, "failed").first)
        #expect(failed["file"] as? String == "b.jpg")
        #expect((failed["error"] as? String)?.contains("took its place since the scan; nothing sent") == true)
        #expect(!FileManager.default.fileExists(atPath: server.stored("files/swap/b.jpg")))
        #expect(FileManager.default.fileExists(atPath: server.stored("files/swap/a-first.bin")))
        await server.stop()
    }

    @Test("a FIFO put in a file's place fails that file at once; the run ends", .timeLimit(.minutes(1)))
    func fifoSwappedIn() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("swap-fifo")
        try folder.write("a-first.bin", size: 600_000, seed: 1)
        let photo = try folder.write("b.jpg", size: 9_000, seed: 2, prefix: Magic.jpeg)
        let outcome = try await run(folder, to: server) {
            try FileManager.default.removeItem(atPath: photo)
            #expect(mkfifo(photo, 0o600) == 0)
        }
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let failed = try #require(try events(outcome.standardOutput, "failed").first)
        #expect((failed["error"] as? String)?.contains("no longer holds a regular file") == true, "\(outcome)")
        #expect(try events(outcome.standardOutput, "summary").count == 1)
        await server.stop()
    }

    @Test("a file cut short while it is PUT fails as changed, not after the stall timeout")
    func truncatedWhilePut() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("swap-truncate")
        let path = try folder.write("big.bin", size: 2_000_000, seed: 4)
        let outcome = try await run(folder, to: server, extra: ["--stall-timeout", "60"]) {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.truncate(atOffset: 10_000)
            try handle.close()
        }
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let failed = try #require(try events(outcome.standardOutput, "failed").first)
        let error = failed["error"] as? String ?? ""
        #expect(error.contains("file changed while uploading: size 2000000 became"), "\(failed)")
    }

    @Test(
        "a file that grows while it is sent is stopped before its last byte: the server keeps nothing under its name",
        arguments: ["put", "form"])
    func grownWhileSent(_ kind: String) async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("swap-grow-" + kind)
        let path = try folder.write("big.jpg", size: 3_000_000, seed: 4, prefix: Magic.jpeg)
        let destination =
            kind == "put" ? ["--put", server.url("/files/swap/")] : ["--to", server.url("/datasets/swap/images")]
        let outcome = try await run(folder, to: server, destination: destination) {
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(repeating: 9, count: 1_000))
            try handle.close()
        }
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let failed = try #require(try events(outcome.standardOutput, "failed").first)
        let error = failed["error"] as? String ?? ""
        #expect(error.contains("file changed while uploading: size 3000000 became 3001000"), "\(failed)")
        let stored = kind == "put" ? "files/swap/big.jpg" : "datasets/swap/big.jpg"
        #expect(!FileManager.default.fileExists(atPath: server.stored(stored)), "a file called failed is not there")
        #expect(await server.server.statistics.filesStored == 0)
        await server.stop()
    }

    @Test("a file of the same size and time moved over the one being sent fails it: the old bytes went out")
    func replacedAlikeWhilePut() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("swap-alike")
        let path = try folder.write("big.bin", size: 2_000_000, seed: 4)
        let outcome = try await run(folder, to: server) {
            let other = folder.path + ".other"
            try Data(repeating: 7, count: 2_000_000).write(to: URL(fileURLWithPath: other))
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            try FileManager.default.setAttributes(
                [.modificationDate: attributes[.modificationDate]!], ofItemAtPath: other)
            #expect(rename(other, path) == 0)
        }
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let failed = try #require(try events(outcome.standardOutput, "failed").first)
        #expect(
            (failed["error"] as? String ?? "").contains("another file took its place during the upload"), "\(failed)")
    }

    @Test("one changed file of a multipart batch fails alone; the rest of its request is sent")
    func changedInBatch() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("swap-batch")
        for name in ["a1", "a2", "a3"] { try folder.write(name + ".jpg", size: 200_000, seed: 5, prefix: Magic.jpeg) }
        let changed = try folder.write("b2.jpg", size: 9_000, seed: 6, prefix: Magic.jpeg)
        for name in ["b1", "b3"] { try folder.write(name + ".jpg", size: 9_000, seed: 7, prefix: Magic.jpeg) }
        let form = ["--to", server.url("/datasets/swap/images"), "--batch", "3"]
        let outcome = try await run(folder, to: server, destination: form) {
            try Data(repeating: 1, count: 4_000).write(to: URL(fileURLWithPath: changed))
        }
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let failed = try events(outcome.standardOutput, "failed")
        #expect(failed.map { $0["file"] as? String } == ["b2.jpg"], "\(failed)")
        #expect((failed.first?["error"] as? String)?.contains("size 9000 became 4000 since the scan") == true)
        let doneEvents = try events(outcome.standardOutput, "done")
        let done = doneEvents.compactMap { $0["file"] as? String }
        #expect(Set(done) == ["a1.jpg", "a2.jpg", "a3.jpg", "b1.jpg", "b3.jpg"])
        // The request that never left is not an attempt of theirs.
        #expect(doneEvents.allSatisfy { $0["attempt"] as? Int == 1 }, "\(doneEvents)")
        for name in ["b1.jpg", "b3.jpg"] {
            #expect(FileManager.default.fileExists(atPath: server.stored("datasets/swap/" + name)))
        }
        #expect(!FileManager.default.fileExists(atPath: server.stored("datasets/swap/b2.jpg")))
        await server.stop()
    }

    @Test("two Unicode spellings of one name (é composed and decomposed) are two files, both sent")
    func unicodeSpellings() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("spellings")
        let composed = "caf\u{E9}.txt"
        let decomposed = "cafe\u{301}.txt"
        try Data("composed".utf8).write(to: URL(fileURLWithPath: folder.path + "/" + composed))
        try Data("decomposed".utf8).write(to: URL(fileURLWithPath: folder.path + "/" + decomposed))
        let outcome = try await ChildProcess.run(
            binary, [folder.path, "--put", server.url("/files/names/"), "--json", "--no-resume"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try events(outcome.standardOutput, "done").count == 2)
        let stored = try FileManager.default.contentsOfDirectory(atPath: server.stored("files/names"))
        #expect(Set(stored.map { Array($0.utf8) }) == [Array(composed.utf8), Array(decomposed.utf8)])
        await server.stop()
    }
}
