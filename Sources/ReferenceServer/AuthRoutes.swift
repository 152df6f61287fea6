import Hummingbird

/// `POST /auth/refresh` (seed: "token refresh on expiry"): trades a bearer credential for a fresh
/// token, so clients can be tested for renewing a session instead of failing the upload.
struct AuthRoutes: Sendable {
    let authority: TokenAuthority
    let statistics: StatisticsRecorder

    /// Adds the route to `router`.
    func register(on router: Router<UploadRequestContext>) {
        router.post("auth/refresh") { request, _ in
            try refresh(request)
        }
    }

    /// Whether `request` is the refresh call, which ``BearerAuthMiddleware`` lets through because
    /// it must accept expired tokens.
    static func isRefresh(_ request: Request) -> Bool {
        request.method == .post && request.uri.path == "/auth/refresh"
    }

    /// Accepts the static token or any token this server signed, expired or not (a sliding
    /// session); with no token configured, anyone gets one.
    func refresh(_ request: Request) throws -> Response {
        if authority.staticToken != nil,
            authority.verdict(forAuthorization: request.headers[.authorization]) == .invalid
        {
            statistics.record { $0.unauthorized += 1 }
            throw BearerAuthMiddleware.unauthorizedError
        }
        let token = authority.issue()
        statistics.record { $0.refreshes += 1 }
        return JSONResponse.make(
            status: 200, body: RefreshResponse(token: token, expiresIn: authority.ttl),
            headers: [.cacheControl: "no-store"])
    }
}

/// `POST /auth/refresh` response: the token under both the plain and the OAuth 2 name, so either
/// style of client finds it; `expires_in` is null when tokens do not expire.
struct RefreshResponse: Encodable {
    var token: String
    var expiresIn: Double?

    private enum CodingKeys: String, CodingKey {
        case token
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(token, forKey: .token)
        try container.encode(token, forKey: .accessToken)
        try container.encode("Bearer", forKey: .tokenType)
        // Written out rather than omitted: a client should not have to guess what absence means.
        try container.encode(expiresIn, forKey: .expiresIn)
    }
}
