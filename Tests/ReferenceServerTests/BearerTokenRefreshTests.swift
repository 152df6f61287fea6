import Foundation
import ReferenceServer
import Testing

/// Expiring bearer tokens and `POST /auth/refresh` (seed: "token refresh on expiry"), with time
/// moved by hand instead of slept through.
@Suite("Token refresh")
struct BearerTokenRefreshTests {
    @Test("the static token expires after tokenTTL; a refresh issues a working token, even from an expired one")
    func tokensExpireAndRefresh() async throws {
        let time = ManualTime(1_700_000_000)
        let token = "tok-\(UUID().uuidString)"
        try await TestServer.with({
            $0.token = token
            $0.tokenTTL = 60
            $0.now = { time.now }
        }) { server in
            let input = try server.makeInputFile(named: "t.bin", contents: randomData(count: 10))
            func put(_ bearer: String) async throws -> CurlResult {
                try await CurlResult.run(
                    ["-T", input, "-H", "Authorization: Bearer \(bearer)", server.baseURL + "/files/t.bin"])
            }

            #expect(try await put(token).httpStatus == 201)
            time.advance(by: 59)
            #expect(try await put(token).httpStatus == 201)
            time.advance(by: 1)
            let expired = try await put(token)
            #expect(expired.httpStatus == 401)
            #expect(expired.headers["www-authenticate"] == #"Bearer error="invalid_token""#)
            #expect(try expired.json(ErrorReply.self).error == "token expired")

            let first = try await refresh(server, bearer: token)
            #expect(first.result.httpStatus == 200)
            #expect(first.result.headers["cache-control"] == "no-store")
            let issued = try #require(first.reply)
            #expect(issued.token.hasPrefix("t1."))
            #expect(issued.access_token == issued.token)
            #expect(issued.token_type == "Bearer")
            #expect(issued.expires_in == 60)
            #expect(try await put(issued.token).httpStatus == 201)

            // Issued tokens live for the TTL from their issue time; then only a refresh helps.
            time.advance(by: 60)
            let issuedExpired = try await put(issued.token)
            #expect(issuedExpired.httpStatus == 401)
            #expect(issuedExpired.headers["www-authenticate"] == #"Bearer error="invalid_token""#)
            let second = try #require(try await refresh(server, bearer: issued.token).reply)
            #expect(second.token != issued.token)
            #expect(try await put(second.token).httpStatus == 201)

            let stats = await server.server.statistics
            #expect(stats.refreshes == 2)
            #expect(stats.unauthorized == 2)
            #expect(stats.storedByPath == ["files/t.bin": 4])
        }
    }

    @Test("refresh refuses missing, wrong, tampered and foreign credentials with plain 401")
    func refreshRefusesBadCredentials() async throws {
        let token = "tok-\(UUID().uuidString)"
        var foreign = ""
        // Same static token, different server: its signing key differs, so its tokens are worthless here.
        try await TestServer.with({ $0.token = token }) { other in
            foreign = try #require(try await refresh(other, bearer: token).reply).token
        }
        try await TestServer.with({ $0.token = token }) { server in
            let genuine = try #require(try await refresh(server, bearer: token).reply).token
            var tampered = Array(genuine)
            tampered[tampered.count - 1] = tampered.last == "0" ? "1" : "0"
            var stretched = genuine.split(separator: ".").map(String.init)
            stretched[1] = "9999999999999"  // a later expiry the signature does not cover

            for bearer in [nil, "nope", String(tampered), stretched.joined(separator: "."), foreign] {
                let result = try await refresh(server, bearer: bearer).result
                #expect(result.httpStatus == 401, "bearer \(bearer ?? "none")")
                #expect(result.headers["www-authenticate"] == "Bearer")
                #expect(try result.json(ErrorReply.self).error == "unauthorized")
            }
            // The foreign token is refused on upload routes too, as unknown rather than expired.
            let put = try await CurlResult.run(["-X", "PUT", "-d", "x", "-H", "Authorization: Bearer \(foreign)",
                server.baseURL + "/files/f.bin"])
            #expect(put.httpStatus == 401)
            #expect(put.headers["www-authenticate"] == "Bearer")

            let stats = await server.server.statistics
            #expect(stats.refreshes == 1)
            #expect(stats.unauthorized == 6)
        }
    }

    @Test("expireTokens() without a TTL expires the static and issued tokens; later tokens work")
    func expireTokensWithoutTTL() async throws {
        let token = "tok-\(UUID().uuidString)"
        try await TestServer.with({ $0.token = token }) { server in
            let input = try server.makeInputFile(named: "e.bin", contents: randomData(count: 10))
            func put(_ bearer: String) async throws -> Int {
                try await CurlResult.run(
                    ["-T", input, "-H", "Authorization: Bearer \(bearer)", server.baseURL + "/files/e.bin"]
                ).httpStatus
            }
            let before = try #require(try await refresh(server, bearer: token).reply)
            #expect(before.expires_in == nil)
            #expect(try await put(token) == 201)
            #expect(try await put(before.token) == 201)

            server.server.expireTokens()

            #expect(try await put(token) == 401)
            #expect(try await put(before.token) == 401)
            let after = try #require(try await refresh(server, bearer: before.token).reply)
            #expect(try await put(after.token) == 201)
            // The static token stays expired; it can still start a session through a refresh.
            #expect(try await put(token) == 401)
            let fromStatic = try #require(try await refresh(server, bearer: token).reply)
            #expect(try await put(fromStatic.token) == 201)
        }
    }

    @Test("without a configured token, refresh hands out tokens to anyone and uploads need none")
    func refreshWithoutConfiguredToken() async throws {
        try await TestServer.with({ $0.tokenTTL = 30 }) { server in
            let issued = try #require(try await refresh(server, bearer: nil).reply)
            #expect(issued.expires_in == 30)
            let put = try await CurlResult.run(["-X", "PUT", "-d", "x", server.baseURL + "/files/open.bin"])
            #expect(put.httpStatus == 201)
            #expect(await server.server.statistics.refreshes == 1)
        }
    }

    /// `POST /auth/refresh` with an optional bearer token; `reply` is set on 200.
    private func refresh(
        _ server: TestServer, bearer: String?
    ) async throws -> (result: CurlResult, reply: RefreshReply?) {
        var arguments = ["-X", "POST", server.baseURL + "/auth/refresh"]
        if let bearer { arguments += ["-H", "Authorization: Bearer \(bearer)"] }
        let result = try await CurlResult.run(arguments)
        return (result, result.httpStatus == 200 ? try result.json(RefreshReply.self) : nil)
    }
}

/// Client-side mirror of the refresh response, spelled as the wire spells it.
private struct RefreshReply: Decodable {
    var token: String
    var access_token: String
    var token_type: String
    var expires_in: Double?
}

/// Client-side mirror of the server's error body.
struct ErrorReply: Decodable {
    var error: String
    var status: Int
}

/// A clock the test moves by hand.
///
/// `@unchecked Sendable`: the only state is `seconds`, read and written under `lock`.
final class ManualTime: @unchecked Sendable {
    private let lock = NSLock()
    private var seconds: Double

    init(_ seconds: Double) { self.seconds = seconds }

    var now: Double { lock.withLock { seconds } }

    func advance(by delta: Double) { lock.withLock { seconds += delta } }
}
