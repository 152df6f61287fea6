import Synchronization
import Testing
import UploadDomain

/// Hands out "t1", "t2", … and counts its calls; the first call can be held until the test lets it go.
final class CountingProvider: TokenProvider {
    let calls = Atomic<Int>(0)
    let entered: AsyncStream<Void>
    private let enteredSink: AsyncStream<Void>.Continuation
    private let gate = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let holdFirst: Bool

    init(holdFirst: Bool = false) {
        self.holdFirst = holdFirst
        (entered, enteredSink) = AsyncStream.makeStream()
    }

    func freshToken(replacing stale: String?) async throws(UploadError) -> String {
        let call = calls.add(1, ordering: .relaxed).newValue
        if holdFirst, call == 1 {
            await withCheckedContinuation { continuation in
                gate.withLock { $0 = continuation }
                enteredSink.yield()
            }
        }
        return "t\(call)"
    }

    func release() {
        gate.withLock { $0.take() }?.resume()
    }
}

struct FailingProvider: TokenProvider {
    func freshToken(replacing stale: String?) async throws(UploadError) -> String {
        throw UploadError(.unauthorized, cause: "token refresh failed: the token command failed (exit 1)")
    }
}

/// Hands out "TOKEN-1", "TOKEN-2", … and then fails as a token command does whose error output quotes the token it
/// was asked to replace and the secrets it knows.
final class QuotingProvider: TokenProvider {
    let succeeding: Int
    let quoted: String
    let calls = Atomic<Int>(0)

    init(succeeding: Int, quoted: String = "") {
        self.succeeding = succeeding
        self.quoted = quoted
    }

    func freshToken(replacing stale: String?) async throws(UploadError) -> String {
        let call = calls.add(1, ordering: .relaxed).newValue
        if call <= succeeding { return "TOKEN-\(call)" }
        throw UploadError(
            .unauthorized,
            cause: "token refresh failed: the token command failed (exit 3): refresh rejected for Bearer "
                + "\(stale ?? "none") (first TOKEN-1, \(quoted))")
    }
}

/// Marks every request as carrying the bearer token.
struct BearerPlanner: RequestPlanner {
    var batchSize: Int { 1 }
    func destination(of item: UploadItem) -> String { "mem://\(item.relativePath)" }
    func curlCommand(for item: UploadItem) -> String { "curl" }
    func request(for items: [UploadItem]) async throws(UploadError) -> TransferRequest {
        TransferRequest(
            method: .put, url: "mem://", headers: [], bearerToken: "", body: .file(items[0], contentType: "x"))
    }
    func results(for items: [UploadItem], response: TransferResponse) -> [UploadResult] {
        items.map { _ in UploadResult(httpStatus: response.status, body: "", isJSON: false) }
    }
}

@Suite("Token refresh (seed 004)")
struct TokenRefreshTests {
    @Test("eight refusals of the same token while one refresh is held cause that one refresh, and all get its token")
    func singleFlight() async throws {
        let provider = CountingProvider(holdFirst: true)
        let tokens = TokenStore(initial: "t0", provider: provider)
        var entered = provider.entered.makeAsyncIterator()
        let results = Task {
            await withTaskGroup(of: String?.self) { group in
                for _ in 0..<8 { group.addTask { try? await tokens.refused("t0") } }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        await entered.next()
        // A request starting now waits for the refresh rather than going out with the refused token.
        let late = Task { try await tokens.current() }
        provider.release()
        #expect(await results.value == Array(repeating: "t1", count: 8))
        #expect(try await late.value == "t1")
        #expect(provider.calls.load(ordering: .relaxed) == 1)
        #expect(await tokens.fetches == 1)
        // A refusal of the old token after the refresh takes the new one without another refresh.
        #expect(try await tokens.refused("t0") == "t1")
        #expect(provider.calls.load(ordering: .relaxed) == 1)
    }

    @Test("a failed refresh fails every waiting and later request with the same clear error, without rerunning it")
    func failedRefreshIsFinal() async throws {
        let tokens = TokenStore(initial: "t0", provider: FailingProvider())
        await #expect(throws: UploadError.self) { try await tokens.refused("t0") }
        do {
            _ = try await tokens.current()
            Issue.record("current() should throw after a failed refresh")
        } catch {
            #expect(error.code == .unauthorized)
            #expect(error.description.contains("token command failed"))
        }
        #expect(await tokens.fetches == 1)
    }

    @Test("without a provider a refusal keeps the token and the session fails the file at once")
    func noProvider() async throws {
        let tokens = TokenStore(initial: "fixed", provider: nil)
        #expect(try await tokens.refused("fixed") == "fixed")
        #expect(await tokens.fetches == 0)
    }

    @Test("a 401 retries at once with the refreshed token, at most twice, then fails as unauthorized")
    func sessionRetriesTwice() async throws {
        let inner = InMemoryTransport()
        let provider = CountingProvider()
        let tokens = TokenStore(initial: "t0", provider: provider)
        let session = UploadSession(
            items: items([10]), planner: BearerPlanner(), transport: AuthorizingTransport(inner, tokens: tokens),
            configuration: .init(tokenRefreshes: 2), clock: ManualClock(), random: { 1 })
        var started = inner.started.makeAsyncIterator()
        await session.start()
        var seen: [String?] = []
        for _ in 0..<3 {
            let request = try #require(await started.next())
            seen.append(request.request.bearerToken)
            request.reply(.success(TransferResponse(status: 401, body: "{\"error\":\"token expired\"}")))
        }
        await session.waitUntilIdle()
        #expect(seen == ["t0", "t1", "t2"])
        let file = await session.snapshot().files[0]
        #expect(file.phase == .failed)
        #expect(file.attempt == 3)
        #expect(file.error?.code == .unauthorized)
        #expect(file.error?.description.contains("still refused after 2 token refreshes") == true)
    }

    @Test("without a token source a 401 is final on the first attempt")
    func noRefreshNoRetry() async throws {
        let inner = InMemoryTransport()
        let session = UploadSession(
            items: items([10]), planner: BearerPlanner(),
            transport: AuthorizingTransport(inner, tokens: TokenStore(initial: "fixed", provider: nil)),
            clock: ManualClock(), random: { 1 })
        var started = inner.started.makeAsyncIterator()
        await session.start()
        let request = try #require(await started.next())
        #expect(request.request.bearerToken == "fixed")
        request.reply(.success(TransferResponse(status: 401)))
        await session.waitUntilIdle()
        let file = await session.snapshot().files[0]
        #expect(file.phase == .failed)
        #expect(file.attempt == 1)
    }

    @Test("a failed refresh's words are redacted of the refused token, every earlier one and the run's secrets")
    func failedRefreshRedacted() async throws {
        let tokens = TokenStore(
            initial: "WRONGTOK_JJJ000", provider: QuotingProvider(succeeding: 1, quoted: "PROXYPASS"),
            secrets: ["PROXYPASS"])
        #expect(try await tokens.refused("WRONGTOK_JJJ000") == "TOKEN-1")
        await #expect(throws: UploadError.self) { try await tokens.refused("TOKEN-1") }
        do {
            _ = try await tokens.current()
            Issue.record("current() should throw after a failed refresh")
        } catch {
            #expect(
                error.description
                    == "token refresh failed: the token command failed (exit 3): refresh rejected for Bearer "
                    + "REDACTED (first REDACTED, REDACTED)")
        }
        let first = TokenStore(initial: "WRONGTOK_JJJ000", provider: QuotingProvider(succeeding: 0))
        do {
            _ = try await first.refused("WRONGTOK_JJJ000")
            Issue.record("refused() should throw")
        } catch {
            #expect(error.description.contains("Bearer REDACTED"), "\(error)")
            #expect(!error.description.contains("WRONGTOK"), "\(error)")
        }
    }

    @Test("a failed refresh is redacted of what the request carries: its secret headers and its URL's key")
    func failedRefreshRedactedOfRequest() async throws {
        struct Planner: RequestPlanner {
            var batchSize: Int { 1 }
            func destination(of item: UploadItem) -> String { "mem://" }
            func curlCommand(for item: UploadItem) -> String { "curl" }
            func request(for items: [UploadItem]) async throws(UploadError) -> TransferRequest {
                TransferRequest(
                    method: .put, url: "mem://h/p?api_key=URLKEY-42",
                    headers: [HTTPHeader(name: "X-Api-Key", value: "HDRKEY-42")!], bearerToken: "",
                    body: .file(items[0], contentType: "x"))
            }
            func results(for items: [UploadItem], response: TransferResponse) -> [UploadResult] {
                items.map { _ in UploadResult(httpStatus: response.status, body: "", isJSON: false) }
            }
        }
        let tokens = TokenStore(initial: nil, provider: QuotingProvider(succeeding: 0, quoted: "HDRKEY-42 URLKEY-42"))
        let session = UploadSession(
            items: items([10]), planner: Planner(),
            transport: AuthorizingTransport(InMemoryTransport(), tokens: tokens), clock: ManualClock(),
            random: { 1 })
        await session.start()
        await session.waitUntilIdle()
        let error = try #require(await session.snapshot().files[0].error)
        #expect(error.description.contains("(first TOKEN-1, REDACTED REDACTED)"), "\(error)")
    }
}
