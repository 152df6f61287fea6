import Foundation
import Testing

@Suite("Memory does not grow with file size", .serialized)
struct LargeFileMemoryTests {
    @Test("a 1 GiB file uploads as multipart with the client's peak RSS under 64 MiB", .timeLimit(.minutes(10)))
    func oneGibibyte() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("large")
        let path = try folder.writeLarge("big.bin", size: 1 << 30, seed: 42)
        let outcome = try await ChildProcess.run(
            ChildProcess.uploaderBinary, [path, "--to", server.url("/datasets/big/images"), "--json"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        // The client's own VmHWM: wait4's ru_maxrss would also count this large test process,
        // whose memory the child shares until exec.
        let summary = try #require(outcome.standardOutput.split(separator: "\n").last)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any])
        let peak = try #require(object["peak_rss_bytes"] as? Int)
        #expect(peak > 1 << 20, "a real reading")
        #expect(peak < 64 << 20, "peak RSS \(peak >> 20) MiB")
        let stored = server.stored("datasets/big/big.bin")
        #expect(try sha256(ofFile: stored) == (try sha256(ofFile: path)))
        await server.stop()
    }
}
