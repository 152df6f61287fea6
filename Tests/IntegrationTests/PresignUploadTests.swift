import Foundation
import Testing

/// Seed 000 end to end: the built binary asks the reference server for tickets, then PUTs to them.
@Suite("uploader-tui --presign end to end", .serialized)
struct PresignUploadTests {
    let binary = ChildProcess.uploaderBinary

    func lines(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test("tickets come in batches, bytes arrive intact, media IDs are reported in input order")
    func mediaIDsInOrder() async throws {
        let secret = "presign-token-value"
        let server = try await ServerFixture.start { $0.token = secret }
        let folder = try TestFolder("presign")
        for i in 0..<12 {
            try folder.write(
                String(format: "img-%02d.jpg", i), size: 20_000 + i * 1_000, seed: UInt64(i), prefix: Magic.jpeg)
        }
        let results = folder.path + ".results.json"
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--presign", server.url("/presigned-urls"), "--media-type", "archive", "--presign-batch",
                "5",
                "--json", "--results", results, "--concurrency", "4", "--journal", folder.path + ".journal",
            ],
            environment: ["UPLOADER_TOKEN": secret])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let stats = await server.server.statistics
        #expect(stats.ticketsIssued == 12)
        #expect(stats.requests == 3 + 12, "3 presign requests of at most 5 files, then 12 PUTs")

        let summary = try #require(try lines(outcome.standardOutput).last)
        let ids = try #require(summary["media_ids"] as? [String])
        let written = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: results))) as? [String: Any])
        let entries = try #require(written["files"] as? [[String: Any]])
        #expect(entries.map { $0["file"] as? String } == (0..<12).map { String(format: "img-%02d.jpg", $0) })
        #expect(entries.map { $0["mediaID"] as? String } == ids)
        // Every key in every entry, null where the file has no value (as NDJSON), so scripts can index them.
        #expect(
            entries.allSatisfy {
                Set($0.keys) == ["file", "phase", "mediaID", "location", "httpStatus", "error", "attempts"]
                    && $0["error"] is NSNull
            }, "\(entries)")
        for entry in entries {
            let key = try #require(entry["location"] as? String)
            #expect(key.hasPrefix("media/archive/"))
            let name = try #require(entry["file"] as? String)
            #expect(
                try sha256(ofFile: server.stored("objects/" + key)) == (try sha256(ofFile: folder.path + "/" + name)))
        }
        for output in [
            outcome.standardOutput, outcome.standardError, try String(contentsOfFile: results, encoding: .utf8),
        ] {
            #expect(!output.contains(secret))
            #expect(!output.contains("sig="), "presigned signatures never appear")
        }

        // A rerun skips every file and still reports each one's media ID and key, from the journal.
        let again = try await ChildProcess.run(
            binary,
            [
                folder.path, "--presign", server.url("/presigned-urls"), "--media-type", "archive", "--json",
                "--results", results, "--journal", folder.path + ".journal",
            ],
            environment: ["UPLOADER_TOKEN": secret])
        // The dry run reads the journal as the run does, under its media type.
        let preview = try await ChildProcess.run(
            binary,
            [
                folder.path, "--presign", server.url("/presigned-urls"), "--media-type", "archive", "--json",
                "--journal", folder.path + ".journal", "--dry-run",
            ],
            environment: ["UPLOADER_TOKEN": secret])
        let previewed = try lines(preview.standardOutput).filter { $0["event"] as? String == "planned" }
        #expect(!previewed.isEmpty && previewed.allSatisfy { $0["journal"] as? String == "skip" }, "\(previewed)")
        #expect(again.status == 0, "\(again.standardError)")
        let rewritten = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: results))) as? [String: Any])
        let skipped = try #require(rewritten["files"] as? [[String: Any]])
        #expect(skipped.allSatisfy { $0["phase"] as? String == "skipped" })
        #expect(skipped.map { $0["mediaID"] as? String } == ids)
        #expect(skipped.map { $0["location"] as? String } == entries.map { $0["location"] as? String })
        #expect(try lines(again.standardOutput).last?["media_ids"] as? [String] == ids)
        // Another media type is another place to store them: sent again.
        let elsewhere = try await ChildProcess.run(
            binary,
            [
                folder.path, "--presign", server.url("/presigned-urls"), "--media-type", "image", "--json",
                "--journal", folder.path + ".journal",
            ],
            environment: ["UPLOADER_TOKEN": secret])
        #expect(try lines(elsewhere.standardOutput).last?["done"] as? Int == 12, "\(elsewhere.standardError)")

        let first = try #require(entries.first?["location"] as? String)
        let deleted = try await ChildProcess.run(
            binary,
            [
                "delete", "--from", server.url("/objects/"), first, "media/none/x.jpg", "--journal",
                folder.path + ".journal",
            ],
            environment: ["UPLOADER_TOKEN": secret])
        #expect(deleted.status == 1, "one key deleted, one missing")
        #expect(deleted.standardError.contains("deleted   \(first)"))
        // Found by the location its answer gave: a rerun sends that file again.
        #expect(deleted.standardError.contains("journal   forgot 1 done record: a rerun sends those files again"))
        // Deleted through another journal, which says it holds no record of it; then through the upload's: the 404
        // says it is gone, and the journal forgets it all the same.
        let second = try #require(entries.dropFirst().first?["location"] as? String)
        var lines: [String] = []
        for journal in [folder.path + ".other", folder.path + ".journal"] {
            let outcome = try await ChildProcess.run(
                binary, ["delete", "--from", server.url("/objects/"), second, "--journal", journal],
                environment: ["UPLOADER_TOKEN": secret])
            lines.append(outcome.standardError)
        }
        #expect(lines[0].contains("deleted   ") && lines[0].contains("holds no done record of them"), "\(lines[0])")
        #expect(lines[1].contains("HTTP 404") && lines[1].contains("journal   forgot 1 done record"), "\(lines[1])")
        #expect(deleted.standardError.contains("failed    media/none/x.jpg: HTTP 404 not found"))
        #expect(!FileManager.default.fileExists(atPath: server.stored("objects/" + first)))

        // A token from a profile's token_command, and a stale --token that --token-command renews after the 401.
        let journal = folder.path + ".journal"
        let config = folder.path + ".config.toml"
        try "[profile.tc]\ntoken_command = \"echo \(secret)\"\n".write(
            toFile: config, atomically: true, encoding: .utf8)
        chmod(config, 0o600)
        let third = try #require(entries.dropFirst(2).first?["location"] as? String)
        let fourth = try #require(entries.dropFirst(3).first?["location"] as? String)
        let profiled = try await ChildProcess.run(
            binary,
            ["delete", "--config", config, "-p", "tc", "--from", server.url("/objects/"), third, "--journal", journal])
        let renewed = try await ChildProcess.run(
            binary,
            [
                "delete", "--token", "stale", "--token-command", "echo \(secret)", "--from", server.url("/objects/"),
                fourth, "--journal", journal,
            ])
        for (outcome, key) in [(profiled, third), (renewed, fourth)] {
            #expect(
                outcome.status == 0 && outcome.standardError.contains("deleted   \(key)"), "\(outcome.standardError)")
            #expect(!FileManager.default.fileExists(atPath: server.stored("objects/" + key)))
        }
        await server.stop()
    }

    @Test("an expired ticket is renewed once and the upload ends done on its second attempt")
    func expiredTicketRenewed() async throws {
        let server = try await ServerFixture.start { $0.presignExpiredTickets = true }
        let folder = try TestFolder("expired")
        for i in 0..<3 { try folder.write("e\(i).png", size: 4_000, seed: UInt64(i), prefix: Magic.png) }
        let outcome = try await ChildProcess.run(
            binary, [folder.path, "--presign", server.url("/presigned-urls"), "--json"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let done = try lines(outcome.standardOutput).filter { $0["event"] as? String == "done" }
        #expect(done.count == 3)
        #expect(done.allSatisfy { $0["attempt"] as? Int == 2 })
        #expect(await server.server.statistics.ticketsRejected == 3)
        await server.stop()
    }

    @Test("a response with fewer tickets than asked fails every file with a clear line and exit 1")
    func countMismatch() async throws {
        let server = try await ServerFixture.start { $0.presignCountMismatch = true }
        let folder = try TestFolder("mismatch")
        for i in 0..<3 { try folder.write("m\(i).jpg", size: 1_000, seed: UInt64(i), prefix: Magic.jpeg) }
        let outcome = try await ChildProcess.run(
            binary, [folder.path, "--presign", server.url("/presigned-urls"), "--no-tui"])
        #expect(outcome.status == 1)
        #expect(
            outcome.standardError.contains(
                "m0.jpg: presign response does not match the request: asked for 3 upload tickets, got 2"))
        #expect(await server.server.statistics.filesStored == 0)
        await server.stop()
    }

    @Test("a refused presign call names the endpoint and the status, and stops the batch: every ticket is asked there")
    func unauthorizedPresign() async throws {
        let server = try await ServerFixture.start { $0.token = "right" }
        let folder = try TestFolder("unauth")
        for i in 0..<4 { try folder.write("u\(i).jpg", size: 1_000, seed: UInt64(i), prefix: Magic.jpeg) }
        let endpoint = server.url("/presigned-urls")
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--presign", endpoint, "--token", "wrong", "--no-tui", "--presign-batch", "1",
                "--concurrency", "1",
            ])
        #expect(outcome.status == 1)
        #expect(await server.server.statistics.requests == 1)
        #expect(outcome.standardError.contains("u0.jpg: presign request to \(endpoint) failed: HTTP 401 unauthorized"))
        #expect(outcome.standardError.contains("1 failed, 3 cancelled"), "\(outcome.standardError)")
        #expect(!outcome.standardError.contains("wrong"))
        await server.stop()
    }
}
