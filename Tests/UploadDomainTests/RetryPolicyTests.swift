import Testing
import UploadDomain

@Suite("RetryPolicy")
struct RetryPolicyTests {
    let policy = RetryPolicy(maxRetries: 3, baseDelay: .milliseconds(100), maxDelay: .seconds(1))

    @Test("connection errors, 408, 429 and 5xx retry; other 4xx and local errors do not")
    func classification() {
        #expect(RetryPolicy.isRetryable(UploadError(.connectionFailed)))
        #expect(RetryPolicy.isRetryable(UploadError(.timedOut)))
        #expect(RetryPolicy.isRetryable(UploadError(.serverError)))
        #expect(RetryPolicy.isRetryable(UploadError(.httpStatus(503))))
        #expect(RetryPolicy.isRetryable(UploadError(.httpStatus(429))))
        #expect(RetryPolicy.isRetryable(UploadError(UploadError.code(forStatus: 408))))
        #expect(!RetryPolicy.isRetryable(UploadError(.httpStatus(400))))
        #expect(!RetryPolicy.isRetryable(UploadError(.notFound)))
        #expect(!RetryPolicy.isRetryable(UploadError(.unauthorized)))
        #expect(!RetryPolicy.isRetryable(UploadError(.fileUnreadable)))
        #expect(!RetryPolicy.isRetryable(UploadError(.cancelled)))
        #expect(!RetryPolicy.isRetryable(UploadError(.tlsFailed)), "the same certificates would fail again")
    }

    @Test("full jitter grows exponentially up to the cap, and stops after maxRetries")
    func backoff() {
        let error = UploadError(.connectionFailed)
        #expect(policy.delay(after: error, attempt: 1, unit: 1) == .milliseconds(100))
        #expect(policy.delay(after: error, attempt: 2, unit: 1) == .milliseconds(200))
        #expect(policy.delay(after: error, attempt: 3, unit: 0.5) == .milliseconds(200))
        #expect(policy.delay(after: error, attempt: 3, unit: 0) == .zero)
        #expect(policy.delay(after: error, attempt: 4, unit: 1) == nil)
        let capped = RetryPolicy(maxRetries: 30, baseDelay: .milliseconds(100), maxDelay: .seconds(1))
        #expect(capped.delay(after: error, attempt: 20, unit: 1) == .seconds(1))
    }

    @Test("Retry-After wins over the computed backoff")
    func retryAfter() {
        let error = UploadError(.httpStatus(429), retryAfter: 2)
        #expect(policy.delay(after: error, attempt: 1, unit: 0) == .seconds(2))
    }

    @Test("a Retry-After too large for a Duration waits the five-minute cap instead of trapping (found by make fuzz)")
    func hugeRetryAfter() throws {
        for header in ["99999999999999999999999999999", "9223372036854775807", "301"] {
            let response = TransferResponse(status: 503, headers: ["retry-after": header])
            let error = try #require(response.error(file: "a.jpg"))
            #expect(policy.delay(after: error, attempt: 1, unit: 0) == .seconds(300))
        }
        // Not a number of seconds (RFC 9110): no Retry-After at all, so the computed backoff.
        for header in ["1e308", "inf"] {
            let response = TransferResponse(status: 503, headers: ["retry-after": header])
            #expect(try #require(response.error(file: "a.jpg")).retryAfter == nil)
        }
        let nan = UploadError(.httpStatus(503), retryAfter: .nan)
        #expect(policy.delay(after: nan, attempt: 1, unit: 1) == .milliseconds(100))
    }
}

@Suite("Retry-After")
struct RetryAfterTests {
    func response(_ retryAfter: String, date: String? = nil, receivedAt: Double? = nil) -> TransferResponse {
        var headers = ["retry-after": retryAfter]
        headers["date"] = date
        var response = TransferResponse(status: 503, headers: headers)
        response.receivedAt = receivedAt
        return response
    }

    @Test("seconds as digits; anything else that looks like a number is not one")
    func seconds() {
        #expect(response("5").retryAfter == 5)
        #expect(response("1.5").retryAfter == 1.5)
        for text in ["0x5", "inf", "nan", "-1", "1e3", "", "soon"] {
            #expect(response(text).retryAfter == nil, "\(text)")
        }
    }

    @Test("an HTTP date counts from the answer's Date, else from when it came; a date past is now")
    func date() {
        let later = "Thu, 26 Nov 2026 10:00:20 GMT"
        #expect(response(later, date: "Thu, 26 Nov 2026 10:00:00 GMT").retryAfter == 20)
        // 2026-11-26 10:00:00 UTC is 1,795,687,200 s after 1970.
        #expect(response(later, receivedAt: 1_795_687_200).retryAfter == 20)
        #expect(response("Sun, 06 Nov 1994 08:49:37 GMT", receivedAt: 1_795_687_200).retryAfter == 0)
        #expect(response(later).retryAfter == nil, "no clock to count from")
        // The two obsolete forms a recipient must read too.
        #expect(response("Thursday, 26-Nov-26 10:00:20 GMT", receivedAt: 1_795_687_200).retryAfter == 20)
        #expect(response("Thu Nov 26 10:00:20 2026", receivedAt: 1_795_687_200).retryAfter == 20)
        #expect(response("Thu, 26 Nov 2026 25:00:20 GMT", receivedAt: 0).retryAfter == nil)
    }
}
