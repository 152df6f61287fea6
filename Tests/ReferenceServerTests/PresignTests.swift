import Crypto
import Foundation
import ReferenceServer
import Testing

/// The presigned-URL object store (seed 000): `POST /presigned-urls`, then `PUT` to each ticket,
/// then `GET`/`HEAD`/`DELETE /objects/<key>`, driven through a real socket with the real curl.
@Suite("Presigned-URL object store")
struct PresignTests {
    // MARK: Happy path

    @Test("presign 3 items, PUT each, GET/HEAD return the same bytes and ETag, If-None-Match gives 304")
    func roundTrip() async throws {
        try await TestServer.with { server in
            let files: [(name: String, type: String, media: String?, data: Data)] = [
                ("cat.jpg", "image/jpeg", "archive", randomData(count: 150_000)),
                ("notes 1.txt", "text/plain; charset=utf-8", nil, randomData(count: 1)),
                ("고양이+사진.png", "image/png", "profile", randomData(count: 70_001)),
            ]
            let presign = try await server.presign(files.map {
                PresignItem(filename: $0.name, contentType: $0.type, mediaType: $0.media, size: $0.data.count)
            })
            #expect(presign.httpStatus == 201)
            let items = try presign.json(PresignBody.self).data.items
            try #require(items.count == files.count)

            for (file, item) in zip(files, items) {
                // Same order as asked, keys under media/<type>/<mediaID>/<filename>.
                #expect(item.contentType == file.type)
                #expect(item.key == "media/\(file.media ?? "default")/\(item.mediaID)/\(file.name)")
                #expect(item.uploadTicket.hasPrefix(server.baseURL + "/objects/"))
                #expect(!item.mediaID.isEmpty)

                let input = try server.makeInputFile(named: UUID().uuidString, contents: file.data)
                let put = try await CurlResult.run(["-g", "-T", input, "-H", "Content-Type: \(file.type)", item.uploadTicket])
                #expect(put.httpStatus == 200, "\(String(decoding: put.body, as: UTF8.self))")
                let stored = try put.json(ObjectUploadBody.self)
                let etag = try #require(put.headers["etag"])
                #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count > 2)
                #expect(stored.etag == etag)
                #expect(stored.key == item.key)
                #expect(stored.size == file.data.count)
                #expect(stored.sha256 == SHA256.hash(data: file.data).hex)
                let onDisk = try Data(contentsOf: server.root.appendingPathComponent("objects/" + item.key))
                #expect(onDisk == file.data)

                let objectURL = server.objectURL(item.key)
                let get = try await CurlResult.run(["-g", objectURL])
                #expect(get.httpStatus == 200)
                #expect(SHA256.hash(data: get.body).hex == stored.sha256)
                #expect(get.headers["etag"] == etag)
                #expect(get.headers["content-type"] == file.type)
                #expect(get.headers["content-length"] == String(file.data.count))

                let head = try await CurlResult.run(["-g", "-I", objectURL])
                #expect(head.httpStatus == 200)
                #expect(head.headers["etag"] == etag)
                #expect(head.headers["content-length"] == String(file.data.count))
                #expect(head.headers["content-type"] == file.type)

                let cached = try await CurlResult.run(["-g", "-H", "If-None-Match: \(etag)", objectURL])
                #expect(cached.httpStatus == 304)
                #expect(cached.body.isEmpty)
                let stale = try await CurlResult.run(["-g", "-H", "If-None-Match: \"0000\"", objectURL])
                #expect(stale.httpStatus == 200)
                #expect(stale.body == file.data)
            }
            let stats = await server.server.statistics
            #expect(stats.ticketsIssued == 3)
            #expect(stats.ticketsRejected == 0)
            #expect(stats.filesStored == 3)
            #expect(stats.storedByPath == Dictionary(uniqueKeysWithValues: items.map { ("objects/" + $0.key, 1) }))
        }
    }

    @Test("the same filename twice gets two keys; hostile filenames stay one component under the prefix")
    func keysNeverCollide() async throws {
        try await TestServer.with { server in
            let first = try await server.presignedItems([PresignItem(filename: "cat.jpg", contentType: "image/jpeg")])
            let second = try await server.presignedItems([
                PresignItem(filename: "cat.jpg", contentType: "image/jpeg"),
                PresignItem(filename: "../../../evil\\x.jpg", contentType: "image/jpeg", mediaType: "../up"),
            ])
            #expect(first[0].key != second[0].key)
            #expect(first[0].mediaID != second[0].mediaID)
            let hostile = second[1]
            let parts = hostile.key.split(separator: "/").map(String.init)
            #expect(parts.count == 4)
            #expect(parts[0] == "media")
            #expect(!parts.contains(".."))
            #expect(parts[2] == hostile.mediaID)

            let data = randomData(count: 300)
            let input = try server.makeInputFile(named: "h.jpg", contents: data)
            let put = try await CurlResult.run(["-g", "-T", input, "-H", "Content-Type: image/jpeg", hostile.uploadTicket])
            #expect(put.httpStatus == 200)
            #expect(server.filesInSandbox().filter { !$0.hasPrefix("inputs/") } == ["root/objects/" + hostile.key])
        }
    }

    @Test("the signature is HMAC-SHA256(secret, \"PUT\\n<key>\\n<expires>\\n<ct>\\n<max>\") in hex")
    func signatureContract() async throws {
        let secret = "s3cr3t-\(UUID().uuidString)"
        try await TestServer.with({ $0.ticketSecret = secret }) { server in
            let items = try await server.presignedItems([
                PresignItem(filename: "a.txt", contentType: "text/plain", size: 5)
            ])
            let ticket = try #require(URLComponents(string: items[0].uploadTicket))
            let query = Dictionary(uniqueKeysWithValues: (ticket.queryItems ?? []).map { ($0.name, $0.value ?? "") })
            let expires = try #require(query["expires"])
            #expect(query["ct"] == "text/plain")
            #expect(query["max"] == "5")
            #expect(ticket.path == "/objects/" + items[0].key)
            func sign(_ text: String) -> String {
                HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: SymmetricKey(data: Data(secret.utf8))).hex
            }
            #expect(query["sig"] == sign("PUT\n\(items[0].key)\n\(expires)\ntext/plain\n5"))

            // A ticket minted by the client from the same secret is accepted: the string-to-sign is
            // the whole contract.
            let key = "media/handmade/\(UUID().uuidString)/b.bin"
            let far = Int(Date().timeIntervalSince1970) + 3600
            let url = server.baseURL + "/objects/\(key)?expires=\(far)&ct=application%2Foctet-stream&max=0&sig="
                + sign("PUT\n\(key)\n\(far)\napplication/octet-stream\n0")
            let input = try server.makeInputFile(named: "b.bin", contents: randomData(count: 2_000))
            let put = try await CurlResult.run(["-T", input, "-H", "Content-Type: application/octet-stream", url])
            #expect(put.httpStatus == 200)
        }
    }

    // MARK: Refusals

    @Test("wrong content type, tampered ticket, missing sig and oversize bodies get 403 and store nothing")
    func refusedTickets() async throws {
        try await TestServer.with { server in
            let items = try await server.presignedItems([
                PresignItem(filename: "a.jpg", contentType: "image/jpeg", size: 1_000),
                PresignItem(filename: "b.jpg", contentType: "image/jpeg", size: 1_000),
            ])
            let exact = try server.makeInputFile(named: "exact.jpg", contents: randomData(count: 1_000))
            let over = try server.makeInputFile(named: "over.jpg", contents: randomData(count: 1_001))
            let large = try server.makeInputFile(named: "large.jpg", contents: randomData(count: 3_000_000))
            let ticket = items[0].uploadTicket
            let jpeg = ["-H", "Content-Type: image/jpeg"]

            let wrongType = try await CurlResult.run(["-T", exact, "-H", "Content-Type: image/png", ticket])
            let noType = try await CurlResult.run(["-T", exact, ticket])
            let lastSigCharacter = ticket.last!
            let tamperedSig = try await CurlResult.run(
                ["-T", exact] + jpeg + [String(ticket.dropLast()) + (lastSigCharacter == "0" ? "1" : "0")])
            let raisedMax = try await CurlResult.run(
                ["-T", over] + jpeg + [ticket.replacingOccurrences(of: "&max=1000&", with: "&max=1001&")])
            let otherKey = try await CurlResult.run(
                ["-T", exact] + jpeg + [ticket.replacingOccurrences(of: "/a.jpg?", with: "/b.jpg?")])
            let noSig = try await CurlResult.run(
                ["-T", exact] + jpeg + [String(ticket[..<ticket.range(of: "&sig=")!.lowerBound])])
            let tooLarge = try await CurlResult.run(["-T", over] + jpeg + [ticket])
            // Chunked: no Content-Length, so the cap is enforced while streaming.
            let tooLargeChunked = try await CurlResult.run(
                ["-T", over, "-H", "Transfer-Encoding: chunked"] + jpeg + [ticket])
            // Big enough for curl to wait for `100 Continue`, which it never gets.
            let tooLargeExpecting = try await CurlResult.run(["-v", "-T", large] + jpeg + [ticket])
            // `Expect:` (empty) turns 100-continue off: the body arrives unasked and is read away
            // before the 403, so curl sees the status instead of a send error.
            let wrongTypeEager = try await CurlResult.run(["-T", large, "-H", "Expect:", "-H", "Content-Type: image/png", ticket])
            let tooLargeEager = try await CurlResult.run(["-T", large, "-H", "Expect:"] + jpeg + [ticket])

            let expectations: [(CurlResult, String)] = [
                (wrongType, "ContentTypeMismatch"), (noType, "ContentTypeMismatch"),
                (tamperedSig, "SignatureDoesNotMatch"), (raisedMax, "SignatureDoesNotMatch"),
                (otherKey, "SignatureDoesNotMatch"), (noSig, "AuthorizationQueryParametersError"),
                (tooLarge, "EntityTooLarge"), (tooLargeChunked, "EntityTooLarge"), (tooLargeExpecting, "EntityTooLarge"),
                (wrongTypeEager, "ContentTypeMismatch"), (tooLargeEager, "EntityTooLarge"),
            ]
            for (index, (result, code)) in expectations.enumerated() {
                #expect(result.httpStatus == 403, "case \(index): \(result.stderr)")
                let body = try? result.json(ErrorResponse.self)
                #expect(body?.code == code, "case \(index)")
                #expect(body?.status == 403)
                #expect(body?.error.hasPrefix(code + ":") == true, "case \(index)")
            }
            #expect(!tooLargeExpecting.stderr.contains("HTTP/1.1 100 Continue"))
            #expect(wrongTypeEager.exitCode == 0)
            #expect(tooLargeEager.exitCode == 0)
            #expect(!server.filesInSandbox().contains { $0.hasPrefix("root/") })
            let stats = await server.server.statistics
            #expect(stats.ticketsRejected == expectations.count)
            #expect(stats.filesStored == 0)
            #expect(stats.bytesReceived >= 2 * 3_000_000)  // the eager bodies were read away

            // The ticket itself is still good for a body that fits.
            let good = try await CurlResult.run(["-T", exact] + jpeg + [ticket])
            #expect(good.httpStatus == 200)
        }
    }

    @Test("ticketTTL 0 issues expired tickets: 403 RequestExpired, nothing stored")
    func expiredByTTL() async throws {
        try await TestServer.with({ $0.ticketTTL = 0 }) { server in
            let items = try await server.presignedItems([PresignItem(filename: "e.jpg", contentType: "image/jpeg")])
            let input = try server.makeInputFile(named: "e.jpg", contents: randomData(count: 500))
            let put = try await CurlResult.run(["-T", input, "-H", "Content-Type: image/jpeg", items[0].uploadTicket])
            #expect(put.httpStatus == 403)
            #expect(try put.json(ErrorResponse.self).code == "RequestExpired")
            #expect(!server.filesInSandbox().contains { $0.hasPrefix("root/") })
        }
    }

    @Test("presignExpiredTickets: the first ticket per filename is expired, a fresh presign works")
    func expiredFirstTicketHook() async throws {
        try await TestServer.with({ $0.presignExpiredTickets = true }) { server in
            let input = try server.makeInputFile(named: "p.jpg", contents: randomData(count: 4_000))
            let put = { (ticket: String) in
                try await CurlResult.run(["-T", input, "-H", "Content-Type: image/jpeg", ticket])
            }
            let first = try await server.presignedItems([
                PresignItem(filename: "p.jpg", contentType: "image/jpeg"),
                PresignItem(filename: "q.jpg", contentType: "image/jpeg"),
            ])
            let expiredP = try await put(first[0].uploadTicket)
            let expiredQ = try await put(first[1].uploadTicket)
            #expect(expiredP.httpStatus == 403)
            #expect(try expiredP.json(ErrorResponse.self).code == "RequestExpired")
            #expect(expiredQ.httpStatus == 403)

            // The retry a client does: ask again for the same file, upload once more.
            let retry = try await server.presignedItems([PresignItem(filename: "p.jpg", contentType: "image/jpeg")])
            let retried = try await put(retry[0].uploadTicket)
            #expect(retried.httpStatus == 200)
            #expect(FileManager.default.fileExists(atPath: server.root.appendingPathComponent("objects/" + retry[0].key).path))
            let stats = await server.server.statistics
            #expect(stats.ticketsIssued == 3)
            #expect(stats.ticketsRejected == 2)
        }
    }

    @Test("presignCountMismatch answers one item fewer than asked")
    func countMismatchHook() async throws {
        try await TestServer.with({ $0.presignCountMismatch = true }) { server in
            let asked = (0..<3).map { PresignItem(filename: "m\($0).jpg", contentType: "image/jpeg") }
            let result = try await server.presign(asked)
            #expect(result.httpStatus == 201)
            let items = try result.json(PresignBody.self).data.items
            #expect(items.count == 2)
            #expect(items.map { $0.key.split(separator: "/").last.map(String.init) } == ["m0.jpg", "m1.jpg"])
        }
    }

    @Test("malformed presign requests get 400 JSON naming the problem")
    func badPresignRequests() async throws {
        try await TestServer.with { server in
            let tooMany = "{\"items\":[" + Array(repeating: #"{"filename":"f","contentType":"a/b"}"#, count: 1001)
                .joined(separator: ",") + "]}"
            let cases: [(body: String, mentions: String)] = [
                ("{not json", "JSON"),
                ("[]", "object"),
                ("{}", "items"),
                (#"{"items":[]}"#, "empty"),
                (tooMany, "1000"),
                (#"{"items":[{"filename":"a.jpg","contentType":"image/jpeg"},{"contentType":"image/jpeg"}]}"#, "items[1].filename"),
                (#"{"items":[{"filename":"a.jpg"}]}"#, "items[0].contentType"),
                (#"{"items":[{"filename":"a.jpg","contentType":""}]}"#, "items[0].contentType"),
                (#"{"items":[{"filename":7,"contentType":"image/jpeg"}]}"#, "items[0].filename"),
                (#"{"items":[{"filename":"..","contentType":"image/jpeg"}]}"#, "items[0].filename"),
                (#"{"items":[{"filename":"a","contentType":"image/jpeg","size":-1}]}"#, "items[0].size"),
            ]
            for (body, mentions) in cases {
                let result = try await CurlResult.run([
                    "-H", "Content-Type: application/json", "--data-binary", body, server.baseURL + "/presigned-urls",
                ])
                #expect(result.httpStatus == 400, "\(body.prefix(60))")
                let error = try? result.json(ErrorResponse.self)
                #expect(error?.status == 400)
                #expect(error?.error.contains(mentions) == true, "\(error?.error ?? "no body") should mention \(mentions)")
            }
            #expect(await server.server.statistics.ticketsIssued == 0)
        }
    }

    // MARK: Auth, delete, faults

    @Test("with a token: presign, GET and DELETE need it; PUT to a ticket ignores Authorization")
    func authAndDelete() async throws {
        let token = "tok-\(UUID().uuidString)"
        try await TestServer.with({ $0.token = token }) { server in
            let bearer = ["-H", "Authorization: Bearer \(token)"]
            let body = try PresignItem.body([PresignItem(filename: "d.jpg", contentType: "image/jpeg")])
            let presignArgs = ["-H", "Content-Type: application/json", "--data-binary", body, server.baseURL + "/presigned-urls"]

            let anonymous = try await CurlResult.run(presignArgs)
            #expect(anonymous.httpStatus == 401)
            let authorized = try await CurlResult.run(bearer + presignArgs)
            #expect(authorized.httpStatus == 201)
            let item = try #require(try authorized.json(PresignBody.self).data.items.first)

            let data = randomData(count: 10_000)
            let input = try server.makeInputFile(named: "d.jpg", contents: data)
            let put = try await CurlResult.run(["-T", input, "-H", "Content-Type: image/jpeg", item.uploadTicket])
            #expect(put.httpStatus == 200)
            let putWithJunkAuth = try await CurlResult.run(
                ["-T", input, "-H", "Content-Type: image/jpeg", "-H", "Authorization: Bearer nope", item.uploadTicket])
            #expect(putWithJunkAuth.httpStatus == 200)

            let objectURL = server.objectURL(item.key)
            #expect(try await CurlResult.run([objectURL]).httpStatus == 401)
            let get = try await CurlResult.run(bearer + [objectURL])
            #expect(get.httpStatus == 200)
            #expect(get.body == data)

            #expect(try await CurlResult.run(["-X", "DELETE", objectURL]).httpStatus == 401)
            let deleted = try await CurlResult.run(bearer + ["-X", "DELETE", objectURL])
            #expect(deleted.httpStatus == 204)
            let gone = try await CurlResult.run(bearer + [objectURL])
            #expect(gone.httpStatus == 404)
            #expect((try? gone.json(ErrorResponse.self))?.status == 404)
            let deletedAgain = try await CurlResult.run(bearer + ["-X", "DELETE", objectURL])
            #expect(deletedAgain.httpStatus == 404)
            #expect((try? deletedAgain.json(ErrorResponse.self))?.error.contains(item.key) == true)
            #expect(!server.filesInSandbox().contains { $0.hasPrefix("root/") })

            // Replace = delete, then upload under a fresh ticket (seed 002).
            let again = try await CurlResult.run(bearer + presignArgs)
            let newItem = try #require(try again.json(PresignBody.self).data.items.first)
            let reput = try await CurlResult.run(["-T", input, "-H", "Content-Type: image/jpeg", newItem.uploadTicket])
            #expect(reput.httpStatus == 200)
            let stats = await server.server.statistics
            #expect(stats.unauthorized == 3)
            #expect(stats.ticketsIssued == 2)
        }
    }

    @Test("fault injection applies to ticket uploads: failRate 1 answers failStatus and stores nothing")
    func faultsOnObjectPut() async throws {
        try await TestServer.with({
            $0.failRate = 1
            $0.failStatus = 503
        }) { server in
            let items = try await server.presignedItems([PresignItem(filename: "f.jpg", contentType: "image/jpeg")])
            let input = try server.makeInputFile(named: "f.jpg", contents: randomData(count: 50_000))
            let put = try await CurlResult.run(["-T", input, "-H", "Content-Type: image/jpeg", items[0].uploadTicket])
            #expect(put.httpStatus == 503)
            #expect(!server.filesInSandbox().contains { $0.hasPrefix("root/") })
            #expect(await server.server.statistics.faultsInjected == 1)
        }
    }

    @Test(
        "uploader-server flags: --ticket-secret, --presign-count-mismatch; the log never shows the query",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: ServerLifecycleTests.executablePath.path),
            "uploader-server not built")
    )
    func executableFlagsAndLogHygiene() async throws {
        let sandbox = FileManager.default.temporaryDirectory.appendingPathComponent("exe-presign-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: sandbox, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: sandbox) }
        let portFile = sandbox.appendingPathComponent("port")
        let logFile = sandbox.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let secret = "exe-secret-\(UUID().uuidString)"

        let process = Process()
        process.executableURL = ServerLifecycleTests.executablePath
        process.arguments = [
            "--port", "0", "--root", sandbox.appendingPathComponent("root").path, "--port-file", portFile.path,
            "--ticket-secret", secret, "--ticket-ttl", "120", "--presign-count-mismatch",
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["UPLOADER_SERVER_TOKEN"] = nil
        process.environment = environment
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = try FileHandle(forWritingTo: logFile)
        let exited = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        try process.run()
        // Readiness: the banner line (blocking read off the cooperative pool).
        _ = await Task.detached { stdout.fileHandleForReading.readData(ofLength: 1) }.value
        let port = try #require(Int(try String(contentsOf: portFile, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        let base = "http://127.0.0.1:\(port)"

        let body = try PresignItem.body([
            PresignItem(filename: "x.jpg", contentType: "image/jpeg"),
            PresignItem(filename: "y.jpg", contentType: "image/jpeg"),
        ])
        let presign = try await CurlResult.run(
            ["-H", "Content-Type: application/json", "--data-binary", body, base + "/presigned-urls"])
        let items = (try? presign.json(PresignBody.self).data.items) ?? []
        #expect(items.count == 1)
        var signature = ""
        if let item = items.first {
            #expect(item.uploadTicket.hasPrefix(base + "/objects/"))
            let query = URLComponents(string: item.uploadTicket)?.queryItems ?? []
            signature = query.first { $0.name == "sig" }?.value ?? ""
            let expires = Int(query.first { $0.name == "expires" }?.value ?? "") ?? 0
            let now = Int(Date().timeIntervalSince1970)
            #expect((now + 100...now + 121).contains(expires))
            let expected = HMAC<SHA256>.authenticationCode(
                for: Data("PUT\n\(item.key)\n\(expires)\nimage/jpeg\n0".utf8),
                using: SymmetricKey(data: Data(secret.utf8))).hex
            #expect(signature == expected)
            let input = sandbox.appendingPathComponent("x.jpg")
            try randomData(count: 1_000).write(to: input)
            let put = try await CurlResult.run(["-T", input.path, "-H", "Content-Type: image/jpeg", item.uploadTicket])
            #expect(put.httpStatus == 200)
            let refused = try await CurlResult.run(["-T", input.path, "-H", "Content-Type: image/png", item.uploadTicket])
            #expect(refused.httpStatus == 403)
        }

        process.terminate()
        var iterator = exited.stream.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        let log = try String(contentsOf: logFile, encoding: .utf8)
        #expect(log.contains("PUT /objects/media/default/"))
        #expect(log.contains(" 403 "))
        #expect(!signature.isEmpty && !log.contains(signature))
        #expect(!log.contains("sig="))
        #expect(!log.contains("?"))
    }
}

// MARK: - Client-side mirrors and helpers

/// One requested item, encoded the way a client would send it.
struct PresignItem: Encodable {
    var filename: String
    var contentType: String
    var mediaType: String?
    var size: Int?

    static func body(_ items: [PresignItem]) throws -> String {
        String(decoding: try JSONEncoder().encode(["items": items]), as: UTF8.self)
    }
}

/// `{"data":{"items":[...]}}`, decoded independently of the server's types.
struct PresignBody: Decodable {
    struct Item: Decodable {
        var mediaID: String
        var uploadTicket: String
        var contentType: String
        var key: String
    }

    struct Payload: Decodable { var items: [Item] }

    var data: Payload
}

struct ObjectUploadBody: Decodable {
    var key: String
    var size: Int
    var sha256: String
    var etag: String
}

struct ErrorResponse: Decodable {
    var error: String
    var status: Int
    var code: String?
}

extension TestServer {
    /// `POST /presigned-urls` with `items`.
    func presign(_ items: [PresignItem]) async throws -> CurlResult {
        try await CurlResult.run([
            "-H", "Content-Type: application/json", "--data-binary", try PresignItem.body(items),
            baseURL + "/presigned-urls",
        ])
    }

    /// Presigns `items` and returns the answered items, failing the test unless it got 201.
    func presignedItems(_ items: [PresignItem]) async throws -> [PresignBody.Item] {
        let result = try await presign(items)
        try #require(result.httpStatus == 201, "\(String(decoding: result.body, as: UTF8.self))")
        let answered = try result.json(PresignBody.self).data.items
        try #require(answered.count == items.count)
        return answered
    }

    /// `<base>/objects/<key>` with each segment percent-encoded.
    func objectURL(_ key: String) -> String {
        baseURL + "/objects/" + key.split(separator: "/").map {
            String($0).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(.init(charactersIn: "+"))) ?? String($0)
        }.joined(separator: "/")
    }
}

extension HashedAuthenticationCode {
    /// Lowercase hex of the MAC, computed independently of the server's own helper.
    var hex: String { map { String(format: "%02x", $0) }.joined() }
}
