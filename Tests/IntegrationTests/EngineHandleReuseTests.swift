import Foundation
import Testing
import UploadDomain

@testable import UploadData

/// A loop's easy handles serve one request after another, reset between them (issue 20): nothing of one request's
/// method, body or headers may reach the next.
@Suite("CurlEngine's reused handles", .serialized)
struct EngineHandleReuseTests {
    @Test("a POST, a PUT, a GET, a HEAD and a POST again on one thread each go out as themselves, on reused handles")
    func requestsOfEveryKind() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("a.jpg", size: 30_000, seed: 1, prefix: Magic.jpeg)
        try folder.write("b.png", size: 70_000, seed: 2, prefix: Magic.png)
        try folder.write("c.jpg", size: 5_000, seed: 3, prefix: Magic.jpeg)
        let items = try FileScanner().scan([folder.path]).items
        let byName = Dictionary(uniqueKeysWithValues: items.map { ($0.relativePath, $0) })
        let (a, b, c) = (try #require(byName["a.jpg"]), try #require(byName["b.png"]), try #require(byName["c.jpg"]))
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))

        let post = MultipartPlanner.reference(server)
        #expect(try await engine.send(try await post.request(for: [a]), probe: TransferProbe()).isSuccess)
        // A PUT after a multipart POST: the raw bytes, not the form.
        let put = PutPlanner(baseURL: server.url("/files/run1"), headers: [], token: nil)
        #expect(try await engine.send(try await put.request(for: [b]), probe: TransferProbe()).isSuccess)
        #expect(try sha256(ofFile: server.stored("files/run1/b.png")) == (try sha256(ofFile: b.path)))
        // A GET after a PUT: no body sent, the stored file read back whole.
        var get = TransferRequest(
            method: .get, url: server.url("/files/run1/b.png"), headers: [], bearerToken: nil, body: .none)
        get.digestsResponseBody = true
        let got = try await engine.send(get, probe: TransferProbe())
        #expect(got.status == 200 && got.bodyDigest?.size == 70_000, "\(got.status)")
        #expect(got.bodyDigest?.sha256 == (try sha256(ofFile: b.path)))
        let head = TransferRequest(
            method: .head, url: server.url("/files/run1/b.png"), headers: [], bearerToken: nil, body: .none)
        let headed = try await engine.send(head, probe: TransferProbe())
        #expect(headed.status == 200 && headed.body.isEmpty, "\(headed.status)")
        // A multipart POST after a HEAD: a body again, to the dataset route.
        #expect(try await engine.send(try await post.request(for: [c]), probe: TransferProbe()).isSuccess)
        #expect(try sha256(ofFile: server.stored("datasets/d1/c.jpg")) == (try sha256(ofFile: c.path)))
        #expect(try sha256(ofFile: server.stored("datasets/d1/a.jpg")) == (try sha256(ofFile: a.path)))
        #expect(engine.reusedHandles == 4, "each request after the first took the handle of the one before")
        engine.shutdown()
        await server.stop()
    }

    @Test("a body of 8 MiB or more is read 512 KiB at a time; a smaller one after it, on the reset handle, 64 KiB")
    func uploadBufferBySize() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("big.jpg", size: Int(CurlTransfer.largeBody), seed: 5, prefix: Magic.jpeg)
        try folder.write("small.jpg", size: 300_000, seed: 6, prefix: Magic.jpeg)
        let items = try FileScanner().scan([folder.path]).items
        let byName = Dictionary(uniqueKeysWithValues: items.map { ($0.relativePath, $0) })
        let (big, small) = (try #require(byName["big.jpg"]), try #require(byName["small.jpg"]))
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))
        let put = PutPlanner(baseURL: server.url("/files/run2"), headers: [], token: nil)
        for (item, read) in [(big, CurlTransfer.largeBodyBuffer), (small, 64 << 10)] {
            #expect(try await engine.send(try await put.request(for: [item]), probe: TransferProbe()).isSuccess)
            #expect(engine.lastLargestRead == read, "\(item.relativePath)")
            let stored = try sha256(ofFile: server.stored("files/run2/" + item.relativePath))
            #expect(stored == (try sha256(ofFile: item.path)))
        }
        let post = MultipartPlanner.reference(server)
        #expect(try await engine.send(try await post.request(for: [big]), probe: TransferProbe()).isSuccess)
        #expect(engine.lastLargestRead == CurlTransfer.largeBodyBuffer, "a multipart body of a large file too")
        engine.shutdown()
        await server.stop()
    }

    @Test("a failed request's handle is not kept: the next one still goes out whole")
    func afterAFailure() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("a.jpg", size: 20_000, seed: 4, prefix: Magic.jpeg)
        let items = try FileScanner().scan([folder.path]).items
        let engine = CurlEngine(options: CurlEngine.Options(threads: 1))
        let refused = MultipartPlanner(
            url: "http://127.0.0.1:1/datasets/d1/images", fileField: "file", fields: [], headers: [], token: nil,
            batchSize: 1)
        await #expect(throws: UploadError.self) {
            _ = try await engine.send(try await refused.request(for: items), probe: TransferProbe())
        }
        let post = MultipartPlanner.reference(server)
        #expect(try await engine.send(try await post.request(for: items), probe: TransferProbe()).isSuccess)
        #expect(try sha256(ofFile: server.stored("datasets/d1/a.jpg")) == (try sha256(ofFile: items[0].path)))
        #expect(engine.reusedHandles == 0)
        engine.shutdown()
        await server.stop()
    }
}
