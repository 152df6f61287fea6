import Crypto
import Foundation
import ReferenceServer
import Testing

/// `--corrupt-rate`: an honest server with a bad disk, and the read routes a client verifies against.
@Suite("Corrupt rate and read-back routes")
struct CorruptionTests {
    func md5(_ data: Data) -> String { Insecure.MD5.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    @Test("GET and HEAD /files/{path} answer the stored bytes with their MD5 as a quoted ETag")
    func filesReadBack() async throws {
        try await TestServer.with { server in
            let data = randomData(count: 70_001)
            let input = try server.makeInputFile(named: "in.bin", contents: data)
            #expect(try await CurlResult.run(["-T", input, server.baseURL + "/files/a/b.bin"]).httpStatus == 201)
            let head = try await CurlResult.run(["-I", server.baseURL + "/files/a/b.bin"])
            #expect(head.httpStatus == 200)
            #expect(head.headers["etag"] == "\"\(md5(data))\"")
            let get = try await CurlResult.run([server.baseURL + "/files/a/b.bin"])
            #expect(get.body == data)
            #expect(try await CurlResult.run(["-I", server.baseURL + "/files/a/none.bin"]).httpStatus == 404)
        }
    }

    @Test("--corrupt-rate 1: what is stored differs from what was sent, and every digest reported is the stored one")
    func corruptStoresWrongBytes() async throws {
        try await TestServer.with({ $0.corruptRate = 1 }) { server in
            let data = randomData(count: 5_000)
            let input = try server.makeInputFile(named: "in.bin", contents: data)
            let put = try await CurlResult.run(["-T", input, server.baseURL + "/files/c.bin"])
            let stored = try Data(contentsOf: server.root.appendingPathComponent("files/c.bin"))
            #expect(stored != data && stored.count == data.count)
            #expect(stored.dropFirst() == data.dropFirst(), "only the first byte is spoilt")
            let answer = try JSONSerialization.jsonObject(with: put.body) as? [String: Any]
            #expect(answer?["sha256"] as? String == SHA256.hash(data: stored).hex)
            let head = try await CurlResult.run(["-I", server.baseURL + "/files/c.bin"])
            #expect(head.headers["etag"] == "\"\(md5(stored))\"")

            let form = try await CurlResult.run(
                ["-F", "file=@\(input);filename=x.jpg", server.baseURL + "/datasets/d/images"])
            let files = (try JSONSerialization.jsonObject(with: form.body) as? [String: Any])?["files"] as? [[String: Any]]
            let sha = files?.first?["sha256"] as? String
            #expect(sha != nil && sha != SHA256.hash(data: data).hex)
        }
    }
}
