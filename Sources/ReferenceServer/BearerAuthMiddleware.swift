import Hummingbird

/// Rejects requests without `Authorization: Bearer <token>`, except `GET /healthz` (which load
/// balancers and scripts poll without credentials) and `PUT /objects/...` (whose credential is the
/// upload ticket's signature; an `Authorization` header there is ignored).
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = UploadRequestContext

    let token: String
    let statistics: StatisticsRecorder

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if request.uri.path == "/healthz" || Self.isTicketUpload(request) {
            return try await next(request, context)
        }
        guard let header = request.headers[.authorization], Self.matches(header, token: token) else {
            statistics.record { $0.unauthorized += 1 }
            throw ReferenceServerError(.unauthorized, "unauthorized", headers: ["WWW-Authenticate": "Bearer"])
        }
        return try await next(request, context)
    }

    /// `PUT /objects/...`: authorised by the ticket signature in its query string instead.
    static func isTicketUpload(_ request: Request) -> Bool {
        request.method == .put && request.uri.path.hasPrefix("/objects/")
    }

    /// Checks `Bearer <token>` (scheme case-insensitive) without an early exit on the first
    /// differing byte, so response timing does not reveal how much of a guess was right.
    static func matches(_ header: String, token: String) -> Bool {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return false }
        let given = Array(parts[1].utf8)
        let expected = Array(token.utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in 0..<expected.count {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }
}
