import Foundation
import Testing

@testable import ReferenceServer

/// `Idempotency-Key` on the upload routes, through a real socket and the real curl: a repeated
/// request is answered from the first one's answer and stores nothing.
@Suite("Idempotency-Key on the upload routes")
struct IdempotencyRouteTests {
    static let photo = TestForm.Part(
        name: "file", filename: "batch/photo.jpg", contentType: "image/jpeg", content: Array(randomData(count: 150_000))
    )
    static let notes = TestForm.Part(
        name: "file", filename: "notes.txt", contentType: "text/plain", content: Array(randomData(count: 10)))
    static let camera = TestForm.Part(name: "camera", filename: nil, contentType: nil, content: Array("north".utf8))

    /// A key as the client makes them: `ut1-` and 32 hex digits.
    static func newKey() -> String {
        "ut1-" + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    @Test("the same form under the same key with another boundary is replayed, not stored again")
    func multipartReplay() async throws {
        try await TestServer.with { server in
            let key = Self.newKey()
            let form = TestForm(parts: [Self.photo, Self.notes, Self.camera])

            let first = try await server.postForm(
                form, boundary: "----first\(UUID().uuidString)", dataset: "d1", key: key)
            try #require(first.httpStatus == 201, "\(String(decoding: first.body, as: UTF8.self))")
            let manifest = try Data(contentsOf: server.root.appendingPathComponent("datasets/d1/manifest.json"))
            let second = try await server.postForm(form, boundary: "x", dataset: "d1", key: key)

            #expect(first.headers["idempotent-replayed"] == nil)
            #expect(second.httpStatus == 201)
            #expect(second.headers["idempotent-replayed"] == "true")
            #expect(second.headers["content-type"] == first.headers["content-type"])
            #expect(second.body == first.body)
            let stats = try await server.servedStatistics()
            #expect(stats.storedByPath == ["datasets/d1/batch/photo.jpg": 1, "datasets/d1/notes.txt": 1])
            #expect(stats.filesStored == 2)
            #expect(stats.idempotentReplays == 1)
            #expect(stats.bytesReceived >= 2 * 150_000)  // the repeat's body was read, not refused
            #expect(try Data(contentsOf: server.root.appendingPathComponent("datasets/d1/manifest.json")) == manifest)
            #expect(!server.filesInSandbox().contains { $0.contains(".upload-") })
        }
    }

    @Test("the same key with other file content gets 422 and stores nothing")
    func multipartMismatch() async throws {
        try await TestServer.with { server in
            let key = Self.newKey()
            var changed = Self.photo
            changed.content[0] ^= 0xFF

            let first = try await server.postForm(TestForm(parts: [Self.photo]), boundary: "b1", dataset: "d", key: key)
            let manifest = try Data(contentsOf: server.root.appendingPathComponent("datasets/d/manifest.json"))
            let second = try await server.postForm(TestForm(parts: [changed]), boundary: "b2", dataset: "d", key: key)

            #expect(first.httpStatus == 201)
            #expect(second.httpStatus == 422)
            #expect(second.headers["idempotent-replayed"] == nil)
            let error = try second.json(ErrorResponse.self)
            #expect(error.error == "Idempotency-Key reused with a different request")
            #expect(error.status == 422)
            let stats = await server.server.statistics
            #expect(stats.storedByPath == ["datasets/d/batch/photo.jpg": 1])
            #expect(stats.idempotencyMismatches == 1)
            #expect(stats.idempotentReplays == 0)
            let stored = try Data(contentsOf: server.root.appendingPathComponent("datasets/d/batch/photo.jpg"))
            #expect(Array(stored) == Self.photo.content)
            #expect(try Data(contentsOf: server.root.appendingPathComponent("datasets/d/manifest.json")) == manifest)
            #expect(!server.filesInSandbox().contains { $0.contains(".upload-") })
        }
    }

    @Test("PUT /files: the same body is replayed; another body or another path gets 422")
    func putReplayAndMismatch() async throws {
        try await TestServer.with { server in
            let key = Self.newKey()
            let data = randomData(count: 200_000)
            let input = try server.makeInputFile(named: "body.bin", contents: data)
            let other = try server.makeInputFile(named: "other.bin", contents: randomData(count: 200_000))
            let header = ["-H", "Idempotency-Key: \"\(key)\""]
            let url = server.baseURL + "/files/dir/a.bin"

            let first = try await CurlResult.run(header + ["-T", input, url])
            let repeated = try await CurlResult.run(header + ["-T", input, url])
            let changed = try await CurlResult.run(header + ["-T", other, url])
            let elsewhere = try await CurlResult.run(header + ["-T", input, server.baseURL + "/files/dir/b.bin"])
            let bare = try await CurlResult.run(["-H", "Idempotency-Key: \(key)", "-T", input, url])

            #expect(first.httpStatus == 201)
            #expect(first.headers["idempotent-replayed"] == nil)
            for replay in [repeated, bare] {
                #expect(replay.httpStatus == 201)
                #expect(replay.headers["idempotent-replayed"] == "true")
                #expect(replay.body == first.body)
            }
            for refused in [changed, elsewhere] {
                #expect(refused.httpStatus == 422)
                #expect(try refused.json(ErrorResponse.self).error == "Idempotency-Key reused with a different request")
            }
            let stats = await server.server.statistics
            #expect(stats.storedByPath == ["files/dir/a.bin": 1])
            #expect(stats.idempotentReplays == 2)
            #expect(stats.idempotencyMismatches == 2)
            #expect(try Data(contentsOf: server.root.appendingPathComponent("files/dir/a.bin")) == data)
            #expect(!FileManager.default.fileExists(atPath: server.root.appendingPathComponent("files/dir/b.bin").path))
        }
    }

    @Test("a repeat while the first request is in its modeling delay gets 409; after it, a replay")
    func inFlightConflict() async throws {
        // Long enough for the second request to come and go while the first one waits.
        try await TestServer.with({ $0.modelingDelay = 10 }) { server in
            let key = Self.newKey()
            let form = TestForm(parts: [Self.photo])
            let first = Task { try await server.postForm(form, boundary: "one", dataset: "slow", key: key) }

            // The file is counted before the modeling step, so from here the first request is in flight.
            try await server.waitUntil("the first request stored its file") {
                $0.storedByPath["datasets/slow/batch/photo.jpg"] == 1
            }
            let second = try await server.postForm(form, boundary: "two", dataset: "slow", key: key)
            let secondStats = await server.server.statistics
            let firstResult = try await first.value
            let third = try await server.postForm(form, boundary: "three", dataset: "slow", key: key)

            #expect(second.httpStatus == 409)
            #expect(second.headers["retry-after"] == "1")
            let error = try second.json(ErrorResponse.self)
            #expect(error.error == "a request with this Idempotency-Key is in progress")
            #expect(error.status == 409)
            #expect(secondStats.idempotencyConflicts == 1)
            #expect(secondStats.storedByPath["datasets/slow/batch/photo.jpg"] == 1)
            #expect(firstResult.httpStatus == 201)
            #expect(third.httpStatus == 201)
            #expect(third.headers["idempotent-replayed"] == "true")
            #expect(third.body == firstResult.body)
            let stats = await server.server.statistics
            #expect(stats.storedByPath == ["datasets/slow/batch/photo.jpg": 1])
            #expect(stats.idempotentReplays == 1)
        }
    }

    @Test("an injected fault on the first attempt does not use up the key")
    func faultDoesNotBurnKey() async throws {
        let seed = try #require(Self.seed(failing: [true, false, false], rate: 0.5))
        try await TestServer.with({
            $0.failRate = 0.5
            $0.failStatus = 503
            $0.seed = seed
        }) { server in
            let key = Self.newKey()
            let input = try server.makeInputFile(named: "f.bin", contents: randomData(count: 50_000))
            let put = {
                try await CurlResult.run([
                    "-H", "Idempotency-Key: \"\(key)\"", "-T", input, server.baseURL + "/files/f.bin",
                ])
            }

            let faulted = try await put()
            let processed = try await put()
            let replayed = try await put()

            #expect(faulted.httpStatus == 503)
            #expect(processed.httpStatus == 201)
            #expect(processed.headers["idempotent-replayed"] == nil)
            #expect(replayed.httpStatus == 201)
            #expect(replayed.headers["idempotent-replayed"] == "true")
            #expect(replayed.body == processed.body)
            let stats = await server.server.statistics
            #expect(stats.faultsInjected == 1)
            #expect(stats.storedByPath == ["files/f.bin": 1])
        }
    }

    @Test("a body cut short by a client that went away does not use up the key")
    func abandonedBodyReleasesKey() async throws {
        try await TestServer.with { server in
            let key = Self.newKey()
            let data = randomData(count: 100_000)
            let connection = try RawConnection(port: server.port)
            let head =
                "PUT /files/cut.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nIdempotency-Key: \"\(key)\"\r\n"
                + "Content-Length: \(data.count)\r\n\r\n"
            try await connection.send(Data(head.utf8) + data.prefix(40_000))
            connection.shutdownWrite()
            // Returns once the server has closed the connection, so the handler has ended.
            _ = try await connection.readToEnd()

            let input = try server.makeInputFile(named: "cut.bin", contents: data)
            let put = {
                try await CurlResult.run([
                    "-H", "Idempotency-Key: \"\(key)\"", "-T", input, server.baseURL + "/files/cut.bin",
                ])
            }
            let processed = try await put()
            let replayed = try await put()

            #expect(processed.httpStatus == 201, "\(String(decoding: processed.body, as: UTF8.self))")
            #expect(processed.headers["idempotent-replayed"] == nil)
            #expect(replayed.headers["idempotent-replayed"] == "true")
            #expect(try Data(contentsOf: server.root.appendingPathComponent("files/cut.bin")) == data)
            #expect(await server.server.statistics.storedByPath == ["files/cut.bin": 1])
        }
    }

    @Test("without the header the same form is stored twice, as before; with it once")
    func noKeyStoresTwice() async throws {
        try await TestServer.with { server in
            let form = TestForm(parts: [Self.photo])
            let key = Self.newKey()
            var results: [CurlResult] = []
            for (boundary, dataset, key) in [
                ("a", "plain", nil), ("b", "plain", nil), ("c", "keyed", key), ("d", "keyed", key),
            ] {
                results.append(try await server.postForm(form, boundary: boundary, dataset: dataset, key: key))
            }

            #expect(results.map(\.httpStatus) == [201, 201, 201, 201])
            #expect(results.map { $0.headers["idempotent-replayed"] } == [nil, nil, nil, "true"])
            let stats = await server.server.statistics
            #expect(stats.storedByPath == ["datasets/plain/batch/photo.jpg": 2, "datasets/keyed/batch/photo.jpg": 1])
            #expect(stats.idempotentReplays == 1)
        }
    }

    @Test("a malformed key gets 400 with a JSON error and stores nothing")
    func malformedKey() async throws {
        try await TestServer.with { server in
            let input = try server.makeInputFile(named: "m.bin", contents: randomData(count: 1_000))
            let malformed = ["\"\"", String(repeating: "k", count: 256), "\"ut1-\tab\"", "\"unterminated"]
            for value in malformed {
                for arguments in [
                    ["-T", input, server.baseURL + "/files/m.bin"],
                    ["-F", "file=@\(input)", server.baseURL + "/datasets/m/images"],
                ] {
                    let result = try await CurlResult.run(["-H", "Idempotency-Key: \(value)"] + arguments)
                    #expect(result.httpStatus == 400, "key \(value)")
                    let error = try result.json(ErrorResponse.self)
                    #expect(error.error.hasPrefix("Idempotency-Key "), "\(error.error)")
                }
            }
            #expect(await server.server.statistics.filesStored == 0)
            #expect(!server.filesInSandbox().contains { $0.hasPrefix("root/") })
        }
    }

    @Test("PUT /objects shares the mechanism: the repeat gets the same ETag and stores nothing")
    func objectReplay() async throws {
        try await TestServer.with { server in
            let data = randomData(count: 5_000)
            let item = try #require(
                try await server.presignedItems([
                    PresignItem(filename: "cat.jpg", contentType: "image/jpeg", mediaType: nil, size: data.count)
                ]).first)
            let input = try server.makeInputFile(named: "cat.jpg", contents: data)
            let put = {
                try await CurlResult.run([
                    "-H", "Idempotency-Key: \"\(Self.newKey())\"", "-H", "Content-Type: image/jpeg", "-T", input,
                    item.uploadTicket,
                ])
            }
            let key = Self.newKey()
            let keyed = {
                try await CurlResult.run([
                    "-H", "Idempotency-Key: \"\(key)\"", "-H", "Content-Type: image/jpeg", "-T", input,
                    item.uploadTicket,
                ])
            }

            let first = try await keyed()
            let repeated = try await keyed()
            let fresh = try await put()

            #expect(first.httpStatus == 200)
            #expect(repeated.httpStatus == 200)
            #expect(repeated.headers["idempotent-replayed"] == "true")
            #expect(repeated.headers["etag"] == first.headers["etag"])
            #expect(repeated.body == first.body)
            #expect(fresh.httpStatus == 200)
            #expect(fresh.headers["idempotent-replayed"] == nil)
            let stats = await server.server.statistics
            #expect(stats.storedByPath == ["objects/" + item.key: 2])
            #expect(stats.idempotentReplays == 1)
        }
    }

    /// A fault seed under which the first upload requests fail (`true`) or pass as `pattern` says,
    /// found by replaying the server's own generator: resets are drawn first, then failures.
    static func seed(failing pattern: [Bool], rate: Double) -> UInt64? {
        (0..<UInt64(10_000)).first { seed in
            var generator = SplitMix64(seed: seed)
            return pattern.allSatisfy { fails in
                _ = generator.nextUnitInterval()  // the reset draw
                return (generator.nextUnitInterval() < rate) == fails
            }
        }
    }
}

extension TestServer {
    /// Posts `form` to `/datasets/<dataset>/images` with `boundary` and, when given, the key as an
    /// sf-string.
    func postForm(_ form: TestForm, boundary: String, dataset: String, key: String?) async throws -> CurlResult {
        let input = try makeInputFile(named: UUID().uuidString, contents: Data(form.body(boundary: boundary)))
        var arguments = ["--data-binary", "@" + input, "-H", "Content-Type: multipart/form-data; boundary=\(boundary)"]
        if let key { arguments += ["-H", "Idempotency-Key: \"\(key)\""] }
        return try await CurlResult.run(arguments + [baseURL + "/datasets/\(dataset)/images"])
    }

    /// The counters as `GET /_stats` serves them.
    func servedStatistics() async throws -> ServerStatistics {
        try await CurlResult.run([baseURL + "/_stats"]).json(ServerStatistics.self)
    }

    /// Polls the server's counters until `condition` holds; fails the test after `timeout`.
    func waitUntil(
        _ what: String, timeout: Duration = .seconds(30), _ condition: (ServerStatistics) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition(await server.statistics) {
            guard ContinuousClock.now < deadline else {
                Issue.record("timed out waiting until \(what)")
                throw CancellationError()
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
