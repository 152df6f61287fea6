import Foundation
import ReferenceServer
import Testing

/// Bearer-token checks and injected faults, observed the way a client sees them.
@Suite("Auth and fault injection")
struct FaultAndAuthTests {
    @Test("401 JSON without the token, success with it, healthz stays open")
    func bearerToken() async throws {
        let token = "tok-\(UUID().uuidString)"
        try await TestServer.with({ $0.token = token }) { server in
            let input = try server.makeInputFile(named: "x.bin", contents: randomData(count: 100))
            let url = server.baseURL + "/files/x.bin"

            let missing = try await CurlResult.run(["-T", input, url])
            let wrong = try await CurlResult.run(["-T", input, "-H", "Authorization: Bearer nope", url])
            let right = try await CurlResult.run(["-T", input, "-H", "Authorization: Bearer \(token)", url])
            let health = try await CurlResult.run([server.baseURL + "/healthz"])
            let stats = try await CurlResult.run(["-H", "Authorization: Bearer \(token)", server.baseURL + "/_stats"])

            #expect(missing.httpStatus == 401)
            #expect(wrong.httpStatus == 401)
            let body = try JSONSerialization.jsonObject(with: missing.body) as? [String: Any]
            #expect(body?["error"] as? String == "unauthorized")
            #expect(right.httpStatus == 201)
            #expect(health.httpStatus == 200)
            #expect(stats.httpStatus == 200)
            let counters = try stats.json(ServerStatistics.self)
            #expect(counters.unauthorized == 2)
            #expect(counters.filesStored == 1)
        }
    }

    @Test("failRate 1 answers failStatus with Retry-After and stores nothing")
    func injectedFailure() async throws {
        let status = [429, 500, 503].randomElement()!
        let retryAfter = Int.random(in: 1...120)
        try await TestServer.with({
            $0.failRate = 1
            $0.failStatus = status
            $0.retryAfter = retryAfter
        }) { server in
            let input = try server.makeInputFile(named: "f.bin", contents: randomData(count: 2_000_000))

            let multipart = try await CurlResult.run(["-F", "file=@\(input)", server.baseURL + "/datasets/f/images"])
            let put = try await CurlResult.run(["-T", input, server.baseURL + "/files/f.bin"])

            for result in [multipart, put] {
                #expect(result.exitCode == 0)
                #expect(result.httpStatus == status)
                #expect(result.headers["retry-after"] == String(retryAfter))
                let body = try JSONSerialization.jsonObject(with: result.body) as? [String: Any]
                #expect(body?["error"] as? String == "injected fault")
                #expect(body?["status"] as? Int == status)
            }
            #expect(!server.filesInSandbox().contains { $0.hasPrefix("root/") })
            let stats = await server.server.statistics
            #expect(stats.faultsInjected == 2)
            #expect(stats.filesStored == 0)
            #expect(stats.storedByPath.isEmpty)
            // The body was drained, so the client's bytes all reached the server.
            #expect(stats.bytesReceived >= 2 * 2_000_000)
        }
    }

    @Test("resetRate 1 drops the connection with no HTTP response", arguments: [100, 3_000_000])
    func injectedReset(size: Int) async throws {
        try await TestServer.with({ $0.resetRate = 1 }) { server in
            let input = try server.makeInputFile(named: "r.bin", contents: randomData(count: size))

            let multipart = try await CurlResult.run(["-F", "file=@\(input)", server.baseURL + "/datasets/r/images"])
            let put = try await CurlResult.run(["-T", input, server.baseURL + "/files/r.bin"])

            for result in [multipart, put] {
                // 52 empty reply, 55 send failure, 56 receive failure: transport errors, not HTTP.
                #expect([52, 55, 56].contains(result.exitCode), "curl exit \(result.exitCode): \(result.stderr)")
                #expect(result.httpStatus == 0)
                #expect(result.headers.isEmpty)
            }
            #expect(!server.filesInSandbox().contains { $0.hasPrefix("root/") })
            let stats = await server.server.statistics
            #expect(stats.resets == 2)
            #expect(stats.filesStored == 0)
            // The server keeps serving after a reset.
            let health = try await CurlResult.run([server.baseURL + "/healthz"])
            #expect(health.httpStatus == 200)
        }
    }

    @Test(
        "stallRate 1 reads one chunk, then neither reads nor answers until the client gives up",
        arguments: [100_000, 20_000_000])
    func injectedStall(size: Int) async throws {
        // A stop limit far above the bound below: a stalled handler that never ended would hold the stop for all of
        // it, while one that ended takes seconds at most on a loaded machine (4.9 s seen with a 5 s limit).
        try await TestServer.with({
            $0.stallRate = 1
            $0.shutdownLimit = .seconds(30)
        }) { server in
            // 20 MB is more than the loopback socket buffers hold, so the client's send really stops;
            // its close then cannot reach the server either (TCP queues the FIN behind unread bytes).
            let input = try server.makeInputFile(named: "stall.bin", contents: Data(count: size))

            // With `Expect: 100-continue` curl sends nothing before the server has counted the stall. 15 s: on a
            // loaded 2-core machine (the suites run in parallel, some preparing images) 8 s was not always enough
            // for the server to read its one chunk.
            let result = try await CurlResult.run(
                ["-m", "15", "-H", "Expect: 100-continue", "-T", input, server.baseURL + "/files/stall.bin"])

            #expect(result.exitCode == 28, "curl exit \(result.exitCode): \(result.stderr)")
            let stats = await server.server.statistics
            #expect(stats.stalls == 1)
            #expect(stats.filesStored == 0)
            #expect(stats.bytesReceived > 0 && stats.bytesReceived < size)
            #expect(!server.filesInSandbox().contains { $0.hasPrefix("root/") })
            let health = try await CurlResult.run([server.baseURL + "/healthz"])
            #expect(health.httpStatus == 200)
            let clock = ContinuousClock()
            let stopStarted = clock.now
            await server.server.stop()
            #expect(clock.now - stopStarted < .seconds(15))
        }
    }

    @Test("a stalled upload ends, with the connection closed and no response, when its client hangs up")
    func stalledUploadEndsOnHangUp() async throws {
        try await TestServer.with({ $0.stallRate = 1 }) { server in
            let connection = try RawConnection(port: server.port)
            let head = "PUT /files/h.bin HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n"
            try await connection.send(Data(head.utf8) + Data(count: 50_000))
            connection.shutdownWrite()

            // Returns only when the server closes its side: the handler noticed the hang-up. Without
            // that, the read times out and throws.
            let received = try await connection.readToEnd()

            #expect(received.isEmpty, "\(String(decoding: received, as: UTF8.self))")
            let stats = await server.server.statistics
            #expect(stats.stalls == 1)
            #expect(stats.filesStored == 0)
        }
    }

    @Test("the same seed replays the same fault sequence")
    func seededFaultsAreReproducible() async throws {
        func outcomes(seed: UInt64) async throws -> [Int] {
            var statuses: [Int] = []
            try await TestServer.with({
                $0.failRate = 0.5
                $0.failStatus = 503
                $0.seed = seed
            }) { server in
                let input = try server.makeInputFile(named: "s.bin", contents: Data("x".utf8))
                for index in 0..<16 {
                    statuses.append(try await CurlResult.run(["-T", input, server.baseURL + "/files/\(index)"]).httpStatus)
                }
            }
            return statuses
        }
        let seed = UInt64.random(in: 0...UInt64.max)
        let first = try await outcomes(seed: seed)
        let second = try await outcomes(seed: seed)
        #expect(first == second)
        #expect(Set(first).isSubset(of: [201, 503]))
    }
}
