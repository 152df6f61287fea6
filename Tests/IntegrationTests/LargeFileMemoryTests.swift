import Foundation
import Testing

@Suite("Memory does not grow with file size", .serialized)
struct LargeFileMemoryTests {
    @Test("a 1 GiB file uploads as multipart with the client's peak RSS under 64 MiB", .timeLimit(.minutes(10)))
    func oneGibibyte() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("large")
        let path = try folder.writeLarge("big.bin", size: 1 << 30, seed: 42)
        let outcome = try ChildProcess.run(
            ChildProcess.uploaderBinary, [path, "--to", server.url("/datasets/big/images"), "--no-tui"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.peakRSS < 64 << 20, "peak RSS \(outcome.peakRSS >> 20) MiB")
        let stored = server.stored("datasets/big/big.bin")
        #expect(try sha256(ofFile: stored) == (try sha256(ofFile: path)))
        await server.stop()
    }
}
