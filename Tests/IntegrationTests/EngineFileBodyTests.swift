import Foundation
import Testing
import UploadData
import UploadDomain

/// A request opens its files once: the check that they are readable keeps the first descriptors for the bodies
/// (issue 20: three opens per file were part of the per-file cost of 10,000 small files).
@Suite("CurlEngine's file bodies", .serialized)
struct EngineFileBodyTests {
    @Test("a request of more files than it keeps open arrives whole, and leaves no descriptor open")
    func manyFilesOneRequest() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        let count = 12
        var sources: [String: String] = [:]
        for i in 0..<count {
            let path = try folder.write("m\(i).jpg", size: (40 << 10) + i, seed: UInt64(i), prefix: Magic.jpeg)
            sources["m\(i).jpg"] = try sha256(ofFile: path)
        }
        #expect(count > 8, "more files than a request keeps open")
        let items = try FileScanner().scan([folder.path]).items
        let planner = MultipartPlanner.reference(server, batch: count)
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))
        let request = try await planner.request(for: items)
        let response = try await engine.send(request, probe: TransferProbe())
        engine.shutdown()
        #expect(response.isSuccess, "\(response.status) \(response.body)")
        // Each body hashed every byte it sent, kept-open descriptor or not.
        #expect(response.contentHashes.count == count && response.contentHashes.allSatisfy { $0 != nil })
        for (name, digest) in sources {
            #expect(try sha256(ofFile: server.stored("datasets/d1/\(name)")) == digest, "\(name)")
        }
        #expect(openFiles(under: folder.path).isEmpty, "\(openFiles(under: folder.path))")
        await server.stop()
    }

    @Test("a file gone after the request was planned fails it as unreadable, by name, before anything is sent")
    func fileGoneBeforeSending() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("a.jpg", size: 4096, seed: 1, prefix: Magic.jpeg)
        let gone = try folder.write("b.jpg", size: 4096, seed: 2, prefix: Magic.jpeg)
        let items = try FileScanner().scan([folder.path]).items
        let planner = MultipartPlanner.reference(server, batch: 2)
        let request = try await planner.request(for: items)
        try FileManager.default.removeItem(atPath: gone)
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))
        await #expect {
            _ = try await engine.send(request, probe: TransferProbe())
        } throws: { error in
            guard let error = error as? UploadError else { return false }
            return error.code == .fileUnreadable && error.file == "b.jpg"
        }
        engine.shutdown()
        #expect(openFiles(under: folder.path).isEmpty, "\(openFiles(under: folder.path))")
        #expect(await server.server.statistics.requests == 0)
        await server.stop()
    }
}

/// The files under `folder` the test process holds open now (other suites' descriptors are elsewhere).
private func openFiles(under folder: String) -> [String] {
    let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
        .filter { $0.hasPrefix(folder + "/") }
}
