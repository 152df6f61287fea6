import Crypto
import Hummingbird

extension IdempotencyStore {
    /// Answers an upload request under the `Idempotency-Key` rules. Call it after the fault draw,
    /// so an injected fault never reaches the store and cannot mark its key as done.
    ///
    /// - Without a key: runs `process` and sends its answer, as before keys existed.
    /// - New key: runs `process`; a 2xx answer is kept for the key, any other answer or a thrown
    ///   error (a body cut short by a dying client included) releases it for the next attempt.
    /// - Key done with the same fingerprint: runs `fingerprint` (which drains the body and stores
    ///   nothing) and sends the first answer again with `Idempotent-Replayed: true`.
    /// - Key done with another fingerprint, or first used with another method or path: drains,
    ///   then 422.
    /// - Key in flight: drains, then 409 with `Retry-After: 1`.
    ///
    /// - Parameters:
    ///   - fingerprint: reads the whole body, storing nothing, and returns the request's fingerprint.
    ///   - process: handles the request as the route always did and returns its answer and fingerprint.
    /// - Throws: ``ReferenceServerError`` for 409 and 422, and whatever the closures throw.
    func respond(
        to request: Request, key: IdempotencyKey?, context: UploadRequestContext, statistics: StatisticsRecorder,
        fingerprint: () async throws -> RequestFingerprint,
        process: () async throws -> (RecordedResponse, RequestFingerprint)
    ) async throws -> Response {
        guard let key else { return try await process().0.response() }
        switch begin(key: key, scope: Scope(method: request.method.rawValue, path: request.uri.path)) {
        case .process(let claim):
            // Every way out of `process` that is not an answer (an error, a cancelled task) must
            // free the key, or each later attempt would get 409 until the server restarts.
            defer { abandoned(claim) }
            let (response, requestFingerprint) = try await process()
            finished(claim, fingerprint: requestFingerprint, response: response)
            return response.response()
        case .conflict:
            try await Self.drain(request, context: context, statistics: statistics)
            statistics.record { $0.idempotencyConflicts += 1 }
            throw ReferenceServerError(
                .idempotencyConflict, "a request with this Idempotency-Key is in progress",
                headers: ["Retry-After": "1"])
        case .mismatch:
            try await Self.drain(request, context: context, statistics: statistics)
            throw Self.mismatch(statistics)
        case .compare(let completed):
            guard try await fingerprint() == completed.fingerprint else { throw Self.mismatch(statistics) }
            statistics.record { $0.idempotentReplays += 1 }
            return completed.response.response(replayed: true)
        }
    }

    /// Reads a raw body to its end, storing nothing.
    /// - Returns: the lowercase hex SHA-256 of the body.
    static func drainHashing(_ request: Request, context: UploadRequestContext, statistics: StatisticsRecorder)
        async throws -> String
    {
        var hasher = SHA256()
        defer { statistics.record { [bytes = context.bodyBytes.value] in $0.bytesReceived += bytes } }
        for try await chunk in request.body {
            context.bodyBytes.add(chunk.readableBytes)
            chunk.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        }
        return hasher.finalize().hexString
    }

    /// Reads the body away before a refusal: answering while the client is still sending makes many
    /// clients report a send error instead of the status.
    private static func drain(_ request: Request, context: UploadRequestContext, statistics: StatisticsRecorder)
        async throws
    {
        defer { statistics.record { [bytes = context.bodyBytes.value] in $0.bytesReceived += bytes } }
        for try await chunk in request.body {
            context.bodyBytes.add(chunk.readableBytes)
        }
    }

    private static func mismatch(_ statistics: StatisticsRecorder) -> ReferenceServerError {
        statistics.record { $0.idempotencyMismatches += 1 }
        return ReferenceServerError(.idempotencyMismatch, "Idempotency-Key reused with a different request")
    }
}
