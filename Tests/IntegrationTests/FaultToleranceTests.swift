import Foundation
import Testing

/// Issue 5 with the real binary: classified retries, stalls, token refresh and torn files.
@Suite("Faults, retries and token refresh", .serialized)
struct FaultToleranceTests {
    let binary = ChildProcess.uploaderBinary

    func events(_ output: String, _ kind: String) throws -> [[String: Any]] {
        try ndjson(output).filter { $0["event"] as? String == kind }
    }

    @Test("503s with Retry-After and dropped connections: every file ends done and intact")
    func faultsAllRecover() async throws {
        let server = try await ServerFixture.start {
            $0.failRate = 0.3
            $0.failStatus = 503
            $0.retryAfter = 1
            $0.resetRate = 0.1
            $0.seed = 8  // draws resets at its 3rd, 5th and 9th requests, whatever the order of files
        }
        let folder = try TestFolder("faults")
        for i in 0..<30 { try folder.write("f-\(i).jpg", size: 40_000 + i, seed: UInt64(i), prefix: Magic.jpeg) }
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/faults/images"), "--json", "--concurrency", "8", "--retries",
                "12",
            ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let done = try events(outcome.standardOutput, "done")
        #expect(done.count == 30)
        #expect(done.contains { ($0["attempt"] as? Int ?? 0) > 1 }, "some file needed another attempt")
        let statistics = await server.server.statistics
        #expect(statistics.faultsInjected > 0)
        #expect(statistics.resets > 0)
        for i in 0..<30 {
            #expect(
                try sha256(ofFile: server.stored("datasets/faults/f-\(i).jpg"))
                    == sha256(ofFile: folder.path + "/f-\(i).jpg"))
        }
        await server.stop()
    }

    @Test("a 400 fails at once; a 429 is retried only after its Retry-After")
    func statusClassification() async throws {
        let badRequest = try await ServerFixture.start {
            $0.failRate = 1
            $0.failStatus = 400
        }
        let folder = try TestFolder("classes")
        try folder.write("one.jpg", size: 3_000, seed: 1, prefix: Magic.jpeg)
        let refused = try await ChildProcess.run(
            binary, [folder.path, "--to", badRequest.url("/datasets/c/images"), "--json", "--no-resume"])
        #expect(refused.status == 1)
        #expect(try events(refused.standardOutput, "retrying").isEmpty)
        #expect(try events(refused.standardOutput, "failed").first?["attempt"] as? Int == 1)
        #expect(await badRequest.server.statistics.faultsInjected == 1)
        await badRequest.stop()

        let busy = try await ServerFixture.start {
            $0.failRate = 1
            $0.failStatus = 429
            $0.retryAfter = 1
        }
        let throttled = try await ChildProcess.run(
            binary, [folder.path, "--to", busy.url("/datasets/c/images"), "--json", "--no-resume", "--retries", "2"])
        #expect(throttled.status == 1)
        let lines = try ndjson(throttled.standardOutput)
        #expect(try events(throttled.standardOutput, "failed").first?["attempt"] as? Int == 3)
        #expect(await busy.server.statistics.faultsInjected == 3)
        // Each retry starts at least the server's second after the refusal.
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let times = lines.filter { ["retrying", "started"].contains($0["event"] as? String) }
            .map { ($0["event"] as! String, formatter.date(from: $0["ts"] as! String)!) }
        for (index, entry) in times.enumerated() where entry.0 == "retrying" && index + 1 < times.count {
            #expect(times[index + 1].1.timeIntervalSince(entry.1) >= 0.95, "retried before Retry-After")
        }
        #expect(times.filter { $0.0 == "retrying" }.count == 2)
        // The wait is in the event: the server's second, not the backoff.
        #expect(try events(throttled.standardOutput, "retrying").allSatisfy { $0["retry_in_s"] as? Double == 1 })
        await busy.stop()
    }

    @Test("a transfer that stops moving is aborted after --stall-timeout and retried")
    func stalledTransfer() async throws {
        let server = try await ServerFixture.start { $0.stallRate = 1 }
        let folder = try TestFolder("stall")
        // Larger than loopback socket buffers, so the client really has to wait.
        try folder.writeLarge("big.bin", size: 24 << 20, seed: 5)
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/s/images"), "--json", "--no-resume", "--stall-timeout", "1",
                "--retries", "1",
            ])
        #expect(outcome.status == 1)
        let failed = try #require(try events(outcome.standardOutput, "failed").first)
        #expect(failed["attempt"] as? Int == 2)
        #expect((failed["error"] as? String)?.contains("no upload progress for 1 s") == true, "\(failed)")
        #expect(try events(outcome.standardOutput, "retrying").count == 1)
        #expect(await server.server.statistics.stalls == 2)
        await server.stop()
    }

    @Test("a server that takes a small body whole and never answers: aborted after --response-timeout and retried")
    func silentServer() async throws {
        let server = try await ServerFixture.start { $0.stallRate = 1 }
        let folder = try TestFolder("silent")
        // Small enough to fit the socket buffers: every byte counts as sent, and only the answer is missing.
        try folder.write("small.jpg", size: 20_000, seed: 6, prefix: Magic.jpeg)
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/s/images"), "--json", "--no-resume", "--stall-timeout", "1",
                "--response-timeout", "1", "--retries", "1",
            ])
        #expect(outcome.status == 1)
        let failed = try #require(try events(outcome.standardOutput, "failed").first)
        #expect(failed["attempt"] as? Int == 2)
        let error = failed["error"] as? String ?? ""
        #expect(error.contains("no answer 1 s after the last byte was sent (--response-timeout)"), "\(failed)")
        // The server counts a stall when it reads the request's head; on a busy machine the second attempt may be
        // given up before it does.
        #expect((1...2).contains(await server.server.statistics.stalls))
        await server.stop()
    }

    @Test(
        "a server that stops reading a body the socket buffers hold: a stall at --stall-timeout, not sent",
        .timeLimit(.minutes(1)))
    func unreadBody() async throws {
        let server = try await ServerFixture.start { $0.stallRate = 1 }
        let folder = try TestFolder("unread")
        // Written whole into the kernel's buffers, most of it never acknowledged: not sent, so not the answer's wait.
        try folder.write("big.jpg", size: 3_000_000, seed: 6, prefix: Magic.jpeg)
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/s/images"), "--json", "--no-resume", "--stall-timeout", "1",
                "--response-timeout", "600", "--retries", "0",
            ])
        #expect(outcome.status == 1)
        let failed = try #require(try events(outcome.standardOutput, "failed").first)
        #expect((failed["error"] as? String)?.contains("no upload progress for 1 s") == true, "\(failed)")
        #expect((failed["bytes_sent"] as? Int ?? 0) < 3_000_000, "\(failed)")
        #expect(try events(outcome.standardOutput, "modeling").isEmpty)
        await server.stop()
    }

    @Test(
        "a presign API that never answers: Ctrl-C ends the run, the file cancelled and the summary written",
        .timeLimit(.minutes(1)))
    func silentPresignInterrupted() async throws {
        // Listening, never accepting: the kernel takes the request, and nobody answers it.
        let (listener, port) = try Loopback.listen()
        defer { close(listener) }
        let folder = try TestFolder("silent-presign")
        try folder.write("p.jpg", size: 5_000, seed: 7, prefix: Magic.jpeg)
        // Given up after --response-timeout, it is said to be the presign request's.
        let timedOut = try await ChildProcess.run(
            binary,
            [
                folder.path, "--presign", "http://127.0.0.1:\(port)/presign", "--json", "--no-resume",
                "--response-timeout", "1", "--retries", "0",
            ])
        let failed = try #require(try events(timedOut.standardOutput, "failed").first)
        let error = failed["error"] as? String ?? ""
        #expect(error.contains("timed out: presign request to http://127.0.0.1:\(port)/presign: no answer"), "\(error)")
        let child = try ChildProcess.start(
            binary,
            [folder.path, "--presign", "http://127.0.0.1:\(port)/presign", "--json", "--no-resume", "--grace", "1"])
        try await waitUntil("the file's start") {
            (try? ndjson(child.standardOutputSoFar))?.contains { $0["event"] as? String == "started" } == true
        }
        child.signal(SIGINT)
        let outcome = await child.wait()
        #expect(outcome.status == 130, "\(outcome.standardError)")
        #expect(try events(outcome.standardOutput, "cancelled").count == 1)
        let summary = try #require(try events(outcome.standardOutput, "summary").first)
        #expect(summary["exit_code"] as? Int == 130)
    }

    @Test("tokens expiring while 8 transfers are in flight: one refresh, every file done")
    func tokenExpiryOneRefresh() async throws {
        let server = try await ServerFixture.start { $0.token = "initial-7f3a" }
        let folder = try TestFolder("expiry")
        for i in 0..<24 { try folder.write("e-\(i).jpg", size: 80_000, seed: UInt64(i), prefix: Magic.jpeg) }
        let child = try ChildProcess.start(
            binary,
            [
                folder.path, "--to", server.url("/datasets/e/images"), "--json", "--no-resume", "--concurrency", "8",
                "--limit-rate", "80K", "--token", "initial-7f3a", "--refresh-url", server.url("/auth/refresh"),
            ])
        try await waitUntil("8 requests in flight") { await server.server.statistics.requests >= 8 }
        server.server.expireTokens()
        let outcome = await child.wait()
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let statistics = await server.server.statistics
        #expect(statistics.refreshes == 1)
        #expect(statistics.unauthorized >= 1)
        #expect(statistics.filesStored == 24)
        #expect(try events(outcome.standardOutput, "done").count == 24)
        #expect(!outcome.standardOutput.contains("initial-7f3a") && !outcome.standardError.contains("initial-7f3a"))
        await server.stop()
    }

    @Test("--token-command fetches the first token; a failing command fails each file with one clear line")
    func tokenCommand() async throws {
        let server = try await ServerFixture.start { $0.token = "login" }
        let folder = try TestFolder("command")
        for i in 0..<4 { try folder.write("k-\(i).jpg", size: 9_000, seed: UInt64(i), prefix: Magic.jpeg) }
        let command = """
            curl -sf -X POST -H 'Authorization: Bearer login' \(server.url("/auth/refresh")) \
            | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])'
            """
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/k/images"), "--json", "--no-resume", "--token-command",
                command,
            ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(await server.server.statistics.refreshes == 1)
        #expect(await server.server.statistics.unauthorized == 0)

        let broken = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/k/images"), "--json", "--no-resume", "--token", "stale",
                "--token-command", "echo no token here >&2; exit 3",
            ])
        #expect(broken.status == 1)
        let failed = try events(broken.standardOutput, "failed")
        #expect(failed.count == 4)
        #expect(failed.allSatisfy { ($0["error"] as? String)?.contains("the token command failed (exit 3)") == true })
        await server.stop()
    }

    @Test("a file that grows while it uploads fails with fileChanged, is not recorded done, and the rerun sends it")
    func tornFile() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("torn")
        let path = try folder.write("growing.jpg", size: 256_000, seed: 9, prefix: Magic.jpeg)
        let journal = folder.path + ".journal.sqlite"
        let child = try ChildProcess.start(
            binary,
            [
                folder.path, "--to", server.url("/datasets/t/images"), "--json", "--journal", journal, "--limit-rate",
                "64K",
            ])
        try await waitUntil("the upload to start") { await server.server.statistics.requests >= 1 }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("more bytes".utf8))
        try handle.close()
        let outcome = await child.wait()
        #expect(outcome.status == 1)
        let failed = try #require(try events(outcome.standardOutput, "failed").first)
        #expect((failed["error"] as? String)?.contains("file changed while uploading") == true, "\(failed)")
        #expect(try await journalDonePaths(journal).isEmpty)

        let rerun = try await ChildProcess.run(
            binary, [folder.path, "--to", server.url("/datasets/t/images"), "--json", "--journal", journal])
        #expect(rerun.status == 0)
        #expect(try sha256(ofFile: server.stored("datasets/t/growing.jpg")) == sha256(ofFile: path))
        await server.stop()
    }
}
