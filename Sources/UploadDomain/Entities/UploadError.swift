/// The one public error of an upload: what went wrong, for which file, with the server's words.
public struct UploadError: Error, Sendable, Equatable {
    /// What kind of failure this is; `RetryPolicy` decides from it.
    public enum Code: Sendable, Equatable {
        case badURL
        case requestFailed
        case connectionFailed
        case invalidResponse
        case notFound
        case serverError
        case httpStatus(Int)
        case decodingFailed
        case presignMismatch
        case fileUnreadable
        /// A folder inside the tree cannot be listed: its files are unknown, so the run must not end well.
        case folderUnlistable
        case fileChanged
        case unauthorized
        case cancelled
        case timedOut
        /// The image cannot be decoded (truncated, not an image, a format libvips cannot read).
        case imageUnreadable
        /// The image declares more pixels than `--max-pixels` allows.
        case imageTooLarge
        /// The prepared copy of an image cannot be written: the temporary folder is full, read-only or missing.
        case preparedCopyUnwritable
        /// `--strip-metadata` was asked and the image's metadata cannot be removed (pages libvips cannot write
        /// again): nothing is sent, rather than the metadata.
        case metadataNotStripped
        /// The image was read but the options cannot be applied to it (a side longer than WebP holds, pages of
        /// different sizes to shrink); the cause says what cannot be done and why.
        case imageNotPrepared
        /// TLS refused: a certificate not trusted, a client certificate missing or refused, a failed handshake.
        /// Another attempt would meet the same certificates, so it is not retried.
        case tlsFailed
        /// `--verify` read back a different digest than the bytes sent: the stored copy is wrong. Not retried on its
        /// own; `r`, `R` or a rerun sends it again under a fresh Idempotency-Key (`UploadItem.keyRenewal`), as a
        /// server that honours the old one would answer with the same copy.
        case verifyMismatch
        /// `--verify` cannot learn what the server stored (no digest in its answer, no ETag, no read access).
        case verifyUnavailable
    }

    public var code: Code
    /// The file's relative path, when the error concerns one file.
    public var file: String?
    public var httpStatus: Int?
    /// A short, single-line excerpt of the response body.
    public var bodyExcerpt: String?
    /// The underlying cause in words (a libcurl message, an errno text).
    public var cause: String?
    /// Seconds the server asked to wait (`Retry-After`).
    public var retryAfter: Double?
    /// Where the token a 401 refused came from, named in its hint after "check": `--token`, `UPLOADER_TOKEN`,
    /// `token of profile pets, ~/.config/uploader-tui/config.toml:3`; nil names both the flag and the variable.
    public var tokenOrigin: String?

    /// Creates an error.
    public init(
        _ code: Code, file: String? = nil, httpStatus: Int? = nil, bodyExcerpt: String? = nil, cause: String? = nil,
        retryAfter: Double? = nil, tokenOrigin: String? = nil
    ) {
        self.code = code
        self.file = file
        self.httpStatus = httpStatus
        self.bodyExcerpt = bodyExcerpt
        self.cause = cause
        self.retryAfter = retryAfter
        self.tokenOrigin = tokenOrigin
    }

    /// Maps a non-2xx HTTP status to its code (seed 003: 404, 500, others by number).
    public static func code(forStatus status: Int) -> Code {
        switch status {
        case 401: .unauthorized
        case 404: .notFound
        case 408: .timedOut
        case 500: .serverError
        default: .httpStatus(status)
        }
    }

    /// A fault of the file itself (unreadable, changed since the scan), not of the request that carried it.
    public var concernsFileAlone: Bool {
        file != nil && (code == .fileUnreadable || code == .fileChanged)
    }

    /// A refusal of the URL itself (404, 405, 410), of the credentials (a 401 once any token refresh is spent) or of
    /// the server's certificate: every request to that endpoint would meet it.
    public var refusesTheEndpoint: Bool {
        code == .tlsFailed || [401, 404, 405, 410].contains(httpStatus)
    }

    /// The same error, naming a file.
    public func forFile(_ name: String) -> UploadError {
        var copy = self
        copy.file = name
        return copy
    }

    /// The same error with `secrets` redacted from its cause and excerpt, which may quote a token command's error
    /// output or a server's words.
    public func redacting(_ secrets: [String]) -> UploadError {
        var copy = self
        copy.cause = cause.map { Redactor.redacting(secrets, in: $0) }
        copy.bodyExcerpt = bodyExcerpt.map { Redactor.redacting(secrets, in: $0) }
        return copy
    }
}

// MARK: - Description

extension UploadError: CustomStringConvertible {
    /// One line: the file, the cause, the status and a body excerpt, and a hint where there is one.
    public var description: String {
        var parts: [String] = []
        if let file { parts.append(Sanitizer.displayName(file) + ":") }
        parts.append(summary)
        if let bodyExcerpt, !bodyExcerpt.isEmpty { parts.append("— " + bodyExcerpt) }
        return parts.joined(separator: " ")
    }

    /// The cause without the file name.
    public var summary: String {
        switch code {
        case .unauthorized where httpStatus == nil && cause != nil:
            return cause ?? ""  // a failed token refresh: no response to speak of
        case .notFound, .serverError, .httpStatus, .unauthorized:
            // For a status, `cause` says which request got it (the presign call, not the upload).
            return cause.map { "\($0): " + statusSummary } ?? statusSummary
        default:
            return statusSummary
        }
    }

    /// What the statuses an upload meets most say, so a line reads without a lookup; a redirect is not followed,
    /// as a body would have to be sent again to wherever it points.
    private static let reasons: [Int: String] = [
        301: "moved permanently (not followed: give the URL it names)",
        302: "found elsewhere (not followed: give the URL it names)",
        303: "see other (not followed: give the URL it names)",
        307: "temporary redirect (not followed: give the URL it names)",
        308: "permanent redirect (not followed: give the URL it names)",
        400: "bad request", 403: "forbidden", 405: "method not allowed",
        407: "proxy authentication required (check the proxy's user and password)", 409: "conflict", 410: "gone",
        411: "length required", 413: "content too large", 415: "unsupported media type", 422: "unprocessable content",
        429: "too many requests", 502: "bad gateway", 503: "service unavailable", 504: "gateway timeout",
        507: "insufficient storage",
    ]

    private var statusSummary: String {
        let status = httpStatus.map { "HTTP \($0)" }
        switch code {
        case .badURL: return "invalid URL" + (cause.map { " (\($0))" } ?? "")
        case .requestFailed: return "request failed: " + (cause ?? "unknown error")
        case .connectionFailed: return "connection failed: " + (cause ?? "unknown error")
        case .invalidResponse: return "invalid response" + (cause.map { ": \($0)" } ?? "")
        case .notFound: return "\(status ?? "HTTP 404") not found (check the URL)"
        case .serverError: return "\(status ?? "HTTP 500") server error"
        case .httpStatus(let n): return Self.reasons[n].map { "HTTP \(n) \($0)" } ?? "HTTP \(n)"
        case .decodingFailed: return "could not decode the response" + (cause.map { ": \($0)" } ?? "")
        case .presignMismatch: return "presign response does not match the request" + (cause.map { ": \($0)" } ?? "")
        case .fileUnreadable: return "cannot read file" + (cause.map { ": \($0)" } ?? "")
        case .folderUnlistable: return "cannot list folder" + (cause.map { ": \($0)" } ?? "")
        case .fileChanged: return "file changed while uploading" + (cause.map { ": \($0)" } ?? "")
        case .unauthorized:
            // A profile's token beats UPLOADER_TOKEN: the hint names the one that was sent.
            return "\(status ?? "HTTP 401") unauthorized (check \(tokenOrigin ?? "--token or UPLOADER_TOKEN"))"
        case .cancelled: return "cancelled" + (cause.map { " (\($0))" } ?? "")
        case .timedOut: return (status.map { "\($0) request timeout" } ?? "timed out") + (cause.map { ": \($0)" } ?? "")
        case .imageUnreadable: return "cannot decode image" + (cause.map { ": \($0)" } ?? "")
        case .imageTooLarge: return "image too large" + (cause.map { ": \($0)" } ?? "")
        case .preparedCopyUnwritable: return "cannot write the prepared copy" + (cause.map { " \($0)" } ?? "")
        case .metadataNotStripped: return "cannot strip metadata" + (cause.map { " \($0)" } ?? "") + "; nothing sent"
        case .imageNotPrepared: return cause ?? "cannot prepare the image"
        case .tlsFailed: return "tls: " + (cause ?? "handshake failed")
        case .verifyMismatch: return "stored copy differs" + (cause.map { ": \($0)" } ?? "")
        case .verifyUnavailable: return "cannot verify" + (cause.map { ": \($0)" } ?? "")
        }
    }
}
