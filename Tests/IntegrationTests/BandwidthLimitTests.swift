import Foundation
import Testing

/// `--bwlimit`: the real binary against the reference server on 127.0.0.1.
@Suite("uploader-tui --bwlimit end to end", .serialized)
struct BandwidthLimitTests {
    let binary = ChildProcess.uploaderBinary
    static let mib = 1 << 20

    private func events(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    /// Bytes per second from the first `started` to the last `modeling` (every byte of every file handed to the
    /// kernel), on the client's own NDJSON clock, and that span in seconds.
    private func achievedRate(_ lines: [[String: Any]], bytes: Int) throws -> (rate: Double, seconds: Double) {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        func times(_ event: String) -> [Date] {
            lines.filter { $0["event"] as? String == event }.compactMap { formatter.date(from: $0["ts"] as! String) }
        }
        let start = try #require(times("started").min())
        let end = try #require(times("modeling").max())
        let seconds = end.timeIntervalSince(start)
        return (Double(bytes) / seconds, seconds)
    }

    @Test(
        "4 multipart transfers at --bwlimit 2M move 2 MiB/s together, never 10% over it, over more than 10 s",
        .timeLimit(.minutes(2)))
    func totalHeldMultipart() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        for i in 0..<8 { try folder.write("part-\(i).bin", size: 3 * Self.mib, seed: UInt64(i)) }
        let outcome = try await ChildProcess.run(
            binary,
            [folder.path, "--to", server.url("/datasets/bw/images"), "--json", "--concurrency", "4", "--bwlimit", "2M"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let lines = try events(outcome.standardOutput)
        let (rate, seconds) = try achievedRate(lines, bytes: 24 * Self.mib)
        let ratio = rate / Double(2 * Self.mib)
        let figures = String(format: "%.3f of the cap over %.1f s", ratio, seconds)
        print("bwlimit multipart: \(figures)")
        #expect(seconds >= 10)
        // Without a total cap, four transfers at once would go at loopback speed (or 4x a per-transfer cap). Above
        // the cap is the promise. Below, a bucket that starves transfers (a cap divided by the transfers would give
        // a quarter); the room is for a debug build among the suite's other tests on 2 cores, whose loop thread
        // is not always scheduled within the bucket's tenth of a second. make bench measures the release build.
        #expect(ratio >= 0.5 && ratio <= 1.1, "achieved \(ratio) of the cap over \(seconds) s")
        #expect(lines.last?["bwlimit"] as? Int == 2 * Self.mib)
        #expect(lines.filter { $0["event"] as? String == "done" }.count == 8)
        #expect(await server.server.statistics.filesStored == 8)
        await server.stop()
    }

    @Test("PUT bodies share the cap too, and arrive byte for byte", .timeLimit(.minutes(1)))
    func totalHeldPut() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        var originals: [String: Data] = [:]
        for i in 0..<8 {
            let path = try folder.write("put-\(i).bin", size: 3 * Self.mib / 2, seed: UInt64(100 + i))
            originals["put-\(i).bin"] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        let outcome = try await ChildProcess.run(
            binary, [folder.path, "--put", server.url("/files/bw/"), "--json", "--concurrency", "8", "--bwlimit", "4M"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let (rate, seconds) = try achievedRate(try events(outcome.standardOutput), bytes: 12 * Self.mib)
        let ratio = rate / Double(4 * Self.mib)
        print("bwlimit put: \(String(format: "%.3f of the cap over %.1f s", ratio, seconds))")
        #expect(ratio >= 0.5 && ratio <= 1.1, "achieved \(ratio) of the cap over \(seconds) s")
        for (name, bytes) in originals {
            #expect(try Data(contentsOf: URL(fileURLWithPath: server.stored("files/bw/" + name))) == bytes, "\(name)")
        }
        await server.stop()
    }

    @Test(
        "a transfer waiting its turn under a low cap is not a stalled one (--stall-timeout 1)", .timeLimit(.minutes(1)))
    func waitingIsNotStalling() async throws {
        // 8 transfers share 256 KiB/s, which the bucket hands out 64 KiB at a time: each waits about 2 s for its
        // next turn, twice the stall timeout.
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        for i in 0..<8 { try folder.write("slow-\(i).bin", size: 160 << 10, seed: UInt64(200 + i)) }
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/slow/images"), "--json", "--concurrency", "8",
                "--bwlimit", "256K", "--stall-timeout", "1", "--retries", "0",
            ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let lines = try events(outcome.standardOutput)
        let done = lines.filter { $0["event"] as? String == "done" }
        #expect(done.count == 8)
        #expect(done.allSatisfy { $0["attempt"] as? Int == 1 })
        await server.stop()
    }

    @Test("--bwlimit that is no rate is a usage error: one line, exit 2, nothing sent; 0 and off mean no cap")
    func badInput() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("a.bin", size: 100, seed: 1)
        let cases = [
            ("abc", "uploader-tui: --bwlimit takes a rate in bytes/s such as 500K or 2M (0 or off: none), not 'abc'"),
            ("-1M", "uploader-tui: --bwlimit takes a rate in bytes/s such as 500K or 2M (0 or off: none), not '-1M'"),
        ]
        for (value, message) in cases {
            let outcome = try await ChildProcess.run(
                binary, [folder.path, "--to", server.url("/datasets/x/images"), "--no-tui", "--bwlimit", value])
            #expect(outcome.status == 2, "\(value): \(outcome.standardError)")
            #expect(outcome.standardError == message + "\n", "\(value)")
        }
        #expect(await server.server.statistics.requests == 0)
        // A profile's cap lifted by a flag: curl's 0 and rclone's off.
        let noCap = [("--bwlimit", "0"), ("--bwlimit", "off"), ("--limit-rate", "0"), ("--limit-rate", "OFF")]
        for (option, value) in noCap {
            let outcome = try await ChildProcess.run(
                binary,
                [folder.path, "--to", server.url("/datasets/x/images"), "--json", "--no-resume", option, value])
            #expect(outcome.status == 0, "\(option) \(value): \(outcome.standardError)")
            #expect(try ndjson(outcome.standardOutput).last?["bwlimit"] == nil)
        }
        await server.stop()
    }
}
