import Hummingbird

/// Rejects requests without a current bearer token (the configured one or one issued by
/// `POST /auth/refresh`), except `GET /healthz` (which load balancers and scripts poll without
/// credentials), `PUT /objects/...` (whose credential is the upload ticket's signature; an
/// `Authorization` header there is ignored) and `POST /auth/refresh` (which accepts expired tokens
/// and so checks for itself).
struct BearerAuthMiddleware: RouterMiddleware {
    typealias Context = UploadRequestContext

    let authority: TokenAuthority
    let statistics: StatisticsRecorder

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if request.uri.path == "/healthz" || Self.isTicketUpload(request) || AuthRoutes.isRefresh(request) {
            return try await next(request, context)
        }
        switch authority.verdict(forAuthorization: request.headers[.authorization]) {
        case .valid:
            return try await next(request, context)
        case .expired:
            statistics.record { $0.unauthorized += 1 }
            throw Self.expiredError
        case .invalid:
            statistics.record { $0.unauthorized += 1 }
            throw Self.unauthorizedError
        }
    }

    /// `PUT /objects/...`: authorised by the ticket signature in its query string instead.
    static func isTicketUpload(_ request: Request) -> Bool {
        request.method == .put && request.uri.path.hasPrefix("/objects/")
    }

    /// 401 for a missing, malformed or unknown credential.
    static var unauthorizedError: ReferenceServerError {
        ReferenceServerError(.unauthorized, "unauthorized", headers: ["WWW-Authenticate": "Bearer"])
    }

    /// 401 for an authentic token past its expiry; RFC 6750's `invalid_token` tells a client that
    /// refreshing, not asking the user, is the fix.
    static var expiredError: ReferenceServerError {
        ReferenceServerError(
            .tokenExpired, "token expired", headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#])
    }
}
