import Foundation
import HTTPTypes
import Hummingbird

/// An error the reference server reports to clients as a JSON body `{"error": "...", "status": N}`.
///
/// The `code` is stable and machine-readable; `message` is a short human-readable reason.
public struct ReferenceServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable identifiers for every failure the server can report.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's string form, e.g. `"malformedMultipart"`.
        public let rawValue: String
        /// Wraps a raw code string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's string form.
        public var description: String { rawValue }

        /// Missing or wrong bearer token.
        public static let unauthorized = Code(rawValue: "unauthorized")
        /// An authentic bearer token past its expiry; `POST /auth/refresh` trades it for a new one.
        public static let tokenExpired = Code(rawValue: "tokenExpired")
        /// The request is not `multipart/form-data` or has no boundary.
        public static let notMultipart = Code(rawValue: "notMultipart")
        /// The multipart body could not be parsed or ended early.
        public static let malformedMultipart = Code(rawValue: "malformedMultipart")
        /// A non-file form field exceeded the size cap.
        public static let fieldTooLarge = Code(rawValue: "fieldTooLarge")
        /// A client-supplied path or id had nothing usable after sanitising.
        public static let invalidPath = Code(rawValue: "invalidPath")
        /// The target path collides with an existing file or folder.
        public static let pathConflict = Code(rawValue: "pathConflict")
        /// Writing to disk failed.
        public static let storageFailed = Code(rawValue: "storageFailed")
        /// A failure injected on purpose by the fault configuration.
        public static let injectedFault = Code(rawValue: "injectedFault")
        /// No route matches the request.
        public static let notFound = Code(rawValue: "notFound")
        /// The server could not bind its listening socket.
        public static let startFailed = Code(rawValue: "startFailed")
        /// Anything unexpected.
        public static let internalError = Code(rawValue: "internalError")
        /// A JSON request body is malformed or misses a required field.
        public static let invalidRequest = Code(rawValue: "invalidRequest")
        /// The `Idempotency-Key` header is repeated, empty, too long or not a string or token.
        public static let invalidIdempotencyKey = Code(rawValue: "invalidIdempotencyKey")
        /// A request with the same `Idempotency-Key` is still being processed (409, `Retry-After`).
        public static let idempotencyConflict = Code(rawValue: "idempotencyConflict")
        /// The `Idempotency-Key` was used before for a different request (422).
        public static let idempotencyMismatch = Code(rawValue: "idempotencyMismatch")

        // Upload-ticket refusals on `PUT /objects/...`, spelled as S3 spells them; all are 403.

        /// The ticket URL lacks `expires`, `ct`, `max` or `sig`, or one is malformed.
        public static let authorizationQueryParametersError = Code(rawValue: "AuthorizationQueryParametersError")
        /// `sig` is not the HMAC of the key, expiry, content type and size cap.
        public static let signatureDoesNotMatch = Code(rawValue: "SignatureDoesNotMatch")
        /// The ticket's `expires` time has passed.
        public static let requestExpired = Code(rawValue: "RequestExpired")
        /// The request's `Content-Type` differs from the one the ticket was issued for.
        public static let contentTypeMismatch = Code(rawValue: "ContentTypeMismatch")
        /// The body is larger than the ticket's `max`.
        public static let entityTooLarge = Code(rawValue: "EntityTooLarge")

        /// Whether the code is one of the upload-ticket refusals (reported with a `code` field).
        var isTicketRefusal: Bool {
            [Self.authorizationQueryParametersError, .signatureDoesNotMatch, .requestExpired,
             .contentTypeMismatch, .entityTooLarge].contains(self)
        }
    }

    /// What went wrong.
    public var code: Code
    /// HTTP status code sent to the client.
    public var statusCode: Int
    /// Short reason, sent as the `error` field.
    public var message: String
    /// Extra response headers (e.g. `Retry-After`).
    public var headers: [String: String]

    /// Creates an error; `status` defaults to the natural status for `code`.
    public init(_ code: Code, _ message: String, status: Int? = nil, headers: [String: String] = [:]) {
        self.code = code
        self.message = message
        self.statusCode = status ?? Self.defaultStatus(for: code)
        self.headers = headers
    }

    /// `code (status): message`.
    public var description: String { "\(code) (\(statusCode)): \(message)" }

    static func defaultStatus(for code: Code) -> Int {
        switch code {
        case .unauthorized, .tokenExpired: 401
        case .notMultipart, .malformedMultipart, .invalidPath, .invalidRequest, .invalidIdempotencyKey: 400
        case .fieldTooLarge: 413
        case .pathConflict, .idempotencyConflict: 409
        case .idempotencyMismatch: 422
        case .notFound: 404
        case .authorizationQueryParametersError, .signatureDoesNotMatch, .requestExpired,
            .contentTypeMismatch, .entityTooLarge: 403
        default: 500
        }
    }
}

extension ReferenceServerError: HTTPResponseError {
    /// The HTTP status of the error response.
    public var status: HTTPResponse.Status { .init(code: statusCode) }

    /// Renders the JSON error body; used by Hummingbird when the error escapes a handler.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = HTTPFields()
        for (name, value) in headers {
            if let field = HTTPField.Name(name) { fields[field] = value }
        }
        let body = ErrorBody(error: message, status: statusCode, code: code.isTicketRefusal ? code.rawValue : nil)
        return JSONResponse.make(status: statusCode, body: body, headers: fields)
    }
}

/// The JSON shape of every error body; `code` is only present on upload-ticket refusals
/// (`{"code":"RequestExpired","error":"RequestExpired: ...","status":403}`).
struct ErrorBody: Codable, Sendable, Equatable {
    var error: String
    var status: Int
    var code: String? = nil
}

/// Builds JSON responses with a stable encoding (sorted keys, unescaped slashes) for readable logs.
enum JSONResponse {
    /// The `Content-Type` of every JSON answer.
    static let contentType = "application/json; charset=utf-8"

    static func make(status: Int, body: some Encodable, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = contentType
        return Response(
            status: .init(code: status),
            headers: fields,
            body: .init(byteBuffer: encode(body))
        )
    }

    /// The JSON bytes of `body`.
    static func encode(_ body: some Encodable) -> ByteBuffer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(body)) ?? Data(#"{"error":"encoding failed"}"#.utf8)
        return ByteBuffer(bytes: data)
    }
}
