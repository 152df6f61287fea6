import Crypto
import Foundation
import ReferenceServer
import Testing

/// End-to-end tests of the upload routes through a real socket and the real curl binary.
@Suite("Upload routes")
struct UploadRouteTests {
    @Test("multipart upload of three files stores identical bytes and reports their paths")
    func multipartStoresFiles() async throws {
        try await TestServer.with { server in
            // Sizes straddle typical network chunk sizes so parts span several body chunks.
            let contents = [randomData(count: 17), randomData(count: 70_001), randomData(count: 300_000)]
            var arguments: [String] = []
            for (index, data) in contents.enumerated() {
                let path = try server.makeInputFile(named: "in\(index).bin", contents: data)
                arguments += ["-F", "file=@\(path);filename=batch/photo\(index).jpg;type=image/jpeg"]
            }
            arguments += ["-F", "camera=north", server.baseURL + "/datasets/ds-1/images"]

            let result = try await CurlResult.run(arguments)

            #expect(result.exitCode == 0)
            #expect(result.httpStatus == 201)
            let response = try result.json(UploadResponseBody.self)
            #expect(response.datasetID == "ds-1")
            #expect(response.fields == ["camera": "north"])
            try #require(response.files.count == 3)
            for (index, file) in response.files.enumerated() {
                let expected = contents[index]
                #expect(file.path == "datasets/ds-1/batch/photo\(index).jpg")
                #expect(file.filename == "batch/photo\(index).jpg")
                #expect(file.field == "file")
                #expect(file.contentType == "image/jpeg")
                #expect(file.size == expected.count)
                #expect(file.sha256 == SHA256.hash(data: expected).hex)
                let stored = try Data(contentsOf: server.root.appendingPathComponent(file.path))
                #expect(stored == expected)
            }
            let manifestURL = server.root.appendingPathComponent("datasets/ds-1/manifest.json")
            let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any]
            let entries = manifest?["files"] as? [String: Any]
            #expect(Set(entries?.keys.map { $0 } ?? []) == Set(response.files.map(\.path)))
            // No temp files left behind once parts are renamed into place.
            #expect(!server.filesInSandbox().contains { $0.contains(".upload-") })
            #expect(await server.server.statistics.filesStored == 3)
        }
    }

    @Test("the same name uploaded again replaces the file; storedByPath counts every store")
    func repeatedNamesAreCounted() async throws {
        try await TestServer.with { server in
            let versions = [randomData(count: 1_000), randomData(count: 2_000)]
            for (index, data) in versions.enumerated() {
                let input = try server.makeInputFile(named: "v\(index).bin", contents: data)
                let put = try await CurlResult.run(["-T", input, server.baseURL + "/files/dir/same.bin"])
                let form = try await CurlResult.run(
                    ["-F", "file=@\(input);filename=sub/same.jpg", server.baseURL + "/datasets/d1/images"])
                #expect(put.httpStatus == 201)
                #expect(form.httpStatus == 201)
            }
            let other = try server.makeInputFile(named: "o.bin", contents: randomData(count: 10))
            #expect(try await CurlResult.run(["-T", other, server.baseURL + "/files/other.bin"]).httpStatus == 201)

            let expected = ["files/dir/same.bin": 2, "datasets/d1/sub/same.jpg": 2, "files/other.bin": 1]
            let stats = await server.server.statistics
            #expect(stats.storedByPath == expected)
            #expect(stats.filesStored == 5)
            // Overwritten in place, not stored beside the first copy under a new name.
            for path in ["files/dir/same.bin", "datasets/d1/sub/same.jpg"] {
                #expect(try Data(contentsOf: server.root.appendingPathComponent(path)) == versions[1])
            }
            let stored = server.filesInSandbox().filter { $0.hasPrefix("root/") }.sorted()
            #expect(stored == ["root/datasets/d1/manifest.json", "root/datasets/d1/sub/same.jpg",
                "root/files/dir/same.bin", "root/files/other.bin"])
            // Served by /_stats too, and absent keys (an older server) decode as zero or empty.
            let served = try await CurlResult.run([server.baseURL + "/_stats"]).json(ServerStatistics.self)
            #expect(served.storedByPath == expected)
            let old = try JSONDecoder().decode(ServerStatistics.self, from: Data(#"{"filesStored":3}"#.utf8))
            #expect(old.filesStored == 3 && old.storedByPath.isEmpty && old.refreshes == 0 && old.stalls == 0)
        }
    }

    @Test("hostile filenames stay inside the dataset folder")
    func hostileFilenamesAreConfined() async throws {
        try await TestServer.with { server in
            let input = try server.makeInputFile(named: "payload.txt", contents: Data("pwned".utf8))
            let hostile = ["../../evil.txt", "a/../../b.txt", "/abs/olute.txt", "..\\..\\win.txt", "../.."]
            let arguments = hostile.flatMap { ["-F", "file=@\(input);filename=\($0)"] }
                + [server.baseURL + "/datasets/..%2F..%2Fescape/images"]

            let result = try await CurlResult.run(arguments)

            #expect(result.httpStatus == 201)
            let response = try result.json(UploadResponseBody.self)
            #expect(response.files.count == hostile.count)
            let datasetFolder = server.root.appendingPathComponent("datasets").appendingPathComponent(response.datasetID)
                .resolvingSymlinksInPath().path
            for file in response.files {
                #expect(!file.path.split(separator: "/").contains(".."), "reported path \(file.path)")
                let stored = server.root.appendingPathComponent(file.path).resolvingSymlinksInPath().path
                #expect(stored.hasPrefix(datasetFolder + "/"), "stored at \(stored)")
                #expect(FileManager.default.fileExists(atPath: stored))
            }
            #expect(Set(response.files.map(\.filename)) == Set(hostile))
            // Only the input file and the stored copies exist; nothing landed next to the root.
            let outsideRoot = server.filesInSandbox().filter { !$0.hasPrefix("root/") && !$0.hasPrefix("inputs/") }
            #expect(outsideRoot.isEmpty, "files outside the root: \(outsideRoot)")
        }
    }

    @Test("modeling step reports PNG dimensions")
    func pngDimensions() async throws {
        try await TestServer.with { server in
            let width = Int.random(in: 1...4000)
            let height = Int.random(in: 1...4000)
            let png = TestImages.png(width: width, height: height)
            let input = try server.makeInputFile(named: "tiny.png", contents: png)

            let result = try await CurlResult.run(["-F", "image=@\(input)", server.baseURL + "/datasets/px/images"])

            #expect(result.httpStatus == 201)
            let file = try #require(try result.json(UploadResponseBody.self).files.first)
            #expect(file.signature == "png")
            #expect(file.width == width)
            #expect(file.height == height)
            #expect(file.field == "image")
        }
    }

    @Test("PUT /files/a/b.bin stores the raw body")
    func putStoresBytes() async throws {
        try await TestServer.with { server in
            let data = randomData(count: 200_000)
            let input = try server.makeInputFile(named: "body.bin", contents: data)

            let result = try await CurlResult.run(["-T", input, server.baseURL + "/files/a/b.bin"])

            #expect(result.httpStatus == 201)
            let body = try #require(try JSONSerialization.jsonObject(with: result.body) as? [String: Any])
            #expect(body["path"] as? String == "files/a/b.bin")
            #expect(body["size"] as? Int == data.count)
            #expect(body["sha256"] as? String == SHA256.hash(data: data).hex)
            #expect(try Data(contentsOf: server.root.appendingPathComponent("files/a/b.bin")) == data)
        }
    }

    @Test("large bodies get 100 Continue instead of a one second stall")
    func expectContinueIsAnswered() async throws {
        try await TestServer.with { server in
            // libcurl adds `Expect: 100-continue` to bodies over 1 MiB.
            let data = randomData(count: 1_200_000)
            let input = try server.makeInputFile(named: "big.bin", contents: data)

            let result = try await CurlResult.run(["-v", "-F", "file=@\(input)", server.baseURL + "/datasets/big/images"])

            #expect(result.httpStatus == 201)
            #expect(result.stderr.contains("Expect: 100-continue"))
            #expect(result.stderr.contains("HTTP/1.1 100 Continue"))
            #expect(try result.json(UploadResponseBody.self).files.first?.size == data.count)
        }
    }

    @Test("malformed or non-multipart bodies get 400 JSON and store nothing")
    func malformedMultipart() async throws {
        try await TestServer.with { server in
            let truncated = try await CurlResult.run([
                "-H", "Content-Type: multipart/form-data; boundary=XYZ",
                "--data-binary", "--XYZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"t.txt\"\r\n\r\nhalf",
                server.baseURL + "/datasets/bad/images",
            ])
            let plain = try await CurlResult.run([
                "-H", "Content-Type: text/plain", "--data-binary", "x", server.baseURL + "/datasets/bad/images",
            ])

            #expect(truncated.httpStatus == 400)
            #expect(plain.httpStatus == 400)
            for result in [truncated, plain] {
                let body = try JSONSerialization.jsonObject(with: result.body) as? [String: Any]
                #expect(body?["error"] is String)
            }
            #expect(!server.filesInSandbox().contains { $0.hasPrefix("root/datasets/bad/") })
        }
    }

    @Test("unknown routes get 404 JSON; healthz answers ok")
    func notFoundAndHealth() async throws {
        try await TestServer.with { server in
            let missing = try await CurlResult.run([server.baseURL + "/nope"])
            let health = try await CurlResult.run([server.baseURL + "/healthz"])

            #expect(missing.httpStatus == 404)
            #expect((try JSONSerialization.jsonObject(with: missing.body) as? [String: Any])?["error"] is String)
            #expect(health.httpStatus == 200)
            #expect(String(decoding: health.body, as: UTF8.self) == "ok")
        }
    }

    @Test("many concurrent uploads all succeed")
    func concurrentUploads() async throws {
        try await TestServer.with { server in
            let count = 24
            let input = try server.makeInputFile(named: "c.bin", contents: randomData(count: 50_000))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<count {
                    group.addTask {
                        try await CurlResult.run(["-T", input, server.baseURL + "/files/c/\(index).bin"]).httpStatus
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 201, count: count))
            let stats = await server.server.statistics
            #expect(stats.filesStored == count)
            #expect(stats.requests == count)
        }
    }
}

extension Digest {
    /// Lowercase hex, computed independently of the server's own helper.
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
