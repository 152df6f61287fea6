import Foundation
import Testing

/// Issue 20: `--concurrency auto` by the real binary against the reference server, whose answer to each upload
/// waits half a second: only more requests in flight raise goodput there, so the width must grow.
@Suite("--concurrency auto end to end", .serialized, .timeLimit(.minutes(5)))
struct AutoConcurrencyTests {
    let binary = ChildProcess.uploaderBinary

    func run(_ arguments: [String], files: Int) async throws -> (status: Int32, events: [[String: Any]], error: String)
    {
        let server = try await ServerFixture.start { $0.modelingDelay = 0.5 }
        let folder = try TestFolder()
        for index in 0..<files {
            try folder.write(String(format: "p%03d.bin", index), size: 20_000, seed: UInt64(index))
        }
        let outcome = try await ChildProcess.run(
            binary, [folder.path, "--to", server.url("/datasets/auto/images"), "--json", "--no-resume"] + arguments)
        await server.stop()
        return (outcome.status, try ndjson(outcome.standardOutput), outcome.standardError)
    }

    @Test("by default the width starts at 4 and doubles while goodput grows; NDJSON reports each width")
    func widens() async throws {
        let (status, events, error) = try await run([], files: 300)
        #expect(status == 0, "\(error)")
        let widths = events.filter { $0["event"] as? String == "concurrency" }
        #expect(widths.first?["concurrency"] as? Int == 4)
        #expect(widths.allSatisfy { $0["auto"] as? Bool == true })
        let widest = widths.compactMap { $0["concurrency"] as? Int }.max() ?? 0
        #expect(widest >= 8, "widths: \(widths.compactMap { $0["concurrency"] as? Int })")
        #expect(events.last?["done"] as? Int == 300)
    }

    @Test("a fixed --concurrency stays as given, reported once")
    func fixed() async throws {
        let (status, events, error) = try await run(["--concurrency", "6"], files: 60)
        #expect(status == 0, "\(error)")
        let widths = events.filter { $0["event"] as? String == "concurrency" }
        #expect(widths.count == 1)
        #expect(widths.first?["concurrency"] as? Int == 6 && widths.first?["auto"] as? Bool == false)
    }

    @Test(
        "--concurrency takes auto or 1-64: anything else is one line naming it, exit 2", arguments: ["0", "65", "fast"])
    func badValue(value: String) async throws {
        let outcome = try await ChildProcess.run(
            binary, ["/tmp", "--to", "http://127.0.0.1:9/", "--concurrency", value])
        #expect(outcome.status == 2)
        #expect(
            outcome.standardError.contains(
                "--concurrency takes auto or a number of requests from 1 to 64, not '\(value)'"))
    }
}
