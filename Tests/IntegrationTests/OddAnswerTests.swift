import Foundation
import Synchronization
import Testing

/// Answers a server should not give, through the real binary: each said for what it is.
@Suite("odd answers")
struct OddAnswerTests {
    func failure(answer: @escaping @Sendable (RawCapture.Request) -> String) async throws -> String {
        let server = try RawCapture(reply: answer)
        defer { server.stop() }
        let folder = try TestFolder("odd")
        try folder.write("a.jpg", size: 1_000, seed: 1, prefix: Magic.jpeg)
        let outcome = try await ChildProcess.run(
            ChildProcess.uploaderBinary, [folder.path, "--to", server.url, "--json", "--no-resume", "--retries", "0"])
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let failed = try ndjson(outcome.standardOutput).first { $0["event"] as? String == "failed" }
        return failed?["error"] as? String ?? ""
    }

    @Test("a form URL the server does not know stops the batch at the first 404: the rest would meet it too")
    func unknownFormURL() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("unknown-url")
        for i in 0..<6 { try folder.write("f\(i).jpg", size: 1_000, seed: UInt64(i), prefix: Magic.jpeg) }
        let outcome = try await ChildProcess.run(
            ChildProcess.uploaderBinary,
            [folder.path, "--to", server.url("/no/such/place"), "--json", "--no-resume", "--concurrency", "1"])
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let summary = try #require(try ndjson(outcome.standardOutput).last)
        #expect(summary["failed"] as? Int == 1 && summary["cancelled"] as? Int == 5, "\(summary)")
        #expect(await server.server.statistics.requests == 1)
        await server.stop()
    }

    @Test("a proxy refusing the tunnel with 407 fails the first file at once, saying so, and stops the batch")
    func proxyRefusesTunnel() async throws {
        let proxy = try RawCapture { _ in "HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n" }
        defer { proxy.stop() }
        let folder = try TestFolder("proxy-407")
        for i in 0..<3 { try folder.write("f\(i).jpg", size: 1_000, seed: UInt64(i), prefix: Magic.jpeg) }
        let outcome = try await ChildProcess.run(
            ChildProcess.uploaderBinary,
            [
                folder.path, "--to", "https://127.0.0.1:9/up", "--proxy", "http://127.0.0.1:\(proxy.port)", "--json",
                "--no-resume", "--concurrency", "1",
            ])
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let failed = try #require(try ndjson(outcome.standardOutput).first { $0["event"] as? String == "failed" })
        let error = failed["error"] as? String ?? ""
        #expect(error.contains("HTTP 407 proxy authentication required"), "\(error)")
        #expect(error.contains("the proxy refused the tunnel to 127.0.0.1"), "\(error)")
        // No outage to wait out, and no more tries of credentials the proxy refused (which may lock its account).
        #expect(proxy.requests.count == 1 && proxy.requests.first?.head.first?.hasPrefix("CONNECT ") == true)
        let summary = try #require(try ndjson(outcome.standardOutput).last)
        #expect(summary["failed"] as? Int == 1 && summary["cancelled"] as? Int == 2, "\(summary)")
    }

    @Test("an answer that is not HTTP is said to be so, not taken for a bad URL")
    func notHTTP() async throws {
        let error = try await failure { _ in "garbage, not http\r\n\r\n" }
        #expect(error.contains("invalid response: 127.0.0.1 answered with something not HTTP"), "\(error)")
    }

    @Test("a redirect, not followed, names where it points (its secrets redacted)")
    func redirect() async throws {
        let error = try await failure { _ in
            "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:9/elsewhere?sig=abc123\r\n"
                + "Content-Length: 0\r\n\r\n"
        }
        #expect(error.contains("HTTP 307 temporary redirect"), "\(error)")
        #expect(error.contains("Location: http://127.0.0.1:9/elsewhere?sig=REDACTED"), "\(error)")
    }

    @Test("a 2xx answered before the body was read is a failure, not a file done")
    func answeredBeforeBody() async throws {
        let server = try RawCapture(answersBeforeBody: true) { _ in
            "HTTP/1.1 201 Created\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok"
        }
        defer { server.stop() }
        let folder = try TestFolder("odd-early")
        try folder.write("big.bin", size: 8_000_000, seed: 1)
        let outcome = try await ChildProcess.run(
            ChildProcess.uploaderBinary,
            [folder.path, "--put", server.url + "/", "--json", "--no-resume", "--retries", "0"])
        #expect(outcome.status == 1, "\(outcome.standardError)")
        let events = try ndjson(outcome.standardOutput)
        #expect(!events.contains { $0["event"] as? String == "done" })
        let error = try #require(events.first { $0["event"] as? String == "failed" }?["error"] as? String)
        #expect(error.contains("HTTP 201 came after"), "\(error)")
        #expect(error.hasSuffix("of 8000000 bytes were sent; the file cannot have been stored"), "\(error)")
    }

    @Test("Retry-After as an HTTP date is waited for, counted from the answer's Date")
    func retryAfterDate() async throws {
        let answered = Mutex(0)
        let server = try RawCapture { _ in
            guard
                answered.withLock({ count in
                    count += 1
                    return count == 1
                })
            else { return "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n" }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            let now = Date()
            return "HTTP/1.1 503 Service Unavailable\r\nDate: \(formatter.string(from: now))\r\n"
                + "Retry-After: \(formatter.string(from: now.addingTimeInterval(3)))\r\nContent-Length: 0\r\n\r\n"
        }
        defer { server.stop() }
        let folder = try TestFolder("odd-date")
        try folder.write("a.jpg", size: 1_000, seed: 1, prefix: Magic.jpeg)
        let outcome = try await ChildProcess.run(
            ChildProcess.uploaderBinary, [folder.path, "--to", server.url, "--json", "--no-resume"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let retrying = try #require(try ndjson(outcome.standardOutput).first { $0["event"] as? String == "retrying" })
        let wait = retrying["retry_in_s"] as? Double ?? 0
        // Whole seconds on both dates: 3, or 2 when the second turned between them.
        #expect(wait >= 2 && wait <= 3, "\(retrying)")
    }
}
