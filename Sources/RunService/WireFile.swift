import UploadDomain

/// One file's row on the wire (`FileSnapshot` without its `curl` command, which a screen asks for when it shows it).
public struct WireFile: Codable, Sendable, Equatable {
    /// Position in the batch's list.
    public var index: Int
    public var id: Int
    public var name: String
    public var path: String
    public var destination: String
    public var size: Int64
    public var sent: Int64
    /// An `UploadPhase` raw value.
    public var phase: String
    public var attempt: Int
    public var paused: Bool?
    public var bytesPerSecond: Double?
    public var httpStatus: Int?
    public var result: WireResult?
    public var error: WireError?
    public var skipReason: String?
    public var preparation: WirePreparation?

    init(_ file: FileSnapshot, index: Int) {
        self.index = index
        id = file.id
        name = file.name
        path = file.path
        destination = file.destination
        size = file.size
        sent = file.sent
        phase = file.phase.rawValue
        attempt = file.attempt
        paused = file.isPaused ? true : nil
        bytesPerSecond = file.bytesPerSecond > 0 && file.bytesPerSecond.isFinite ? file.bytesPerSecond : nil
        httpStatus = file.httpStatus
        result = file.result.map(WireResult.init)
        error = file.error.map(WireError.init)
        skipReason = file.skipReason
        preparation = file.preparation.map(WirePreparation.init)
    }

    func domain(curl: LazyText) -> FileSnapshot {
        FileSnapshot(
            id: id, name: name, path: path, destination: destination, curlCommand: curl, size: size, sent: sent,
            phase: UploadPhase(rawValue: phase) ?? .queued, attempt: attempt, isPaused: paused ?? false,
            bytesPerSecond: bytesPerSecond ?? 0, httpStatus: httpStatus, result: result?.domain, error: error?.domain,
            skipReason: skipReason, preparation: preparation?.domain)
    }
}

/// `UploadResult` on the wire.
public struct WireResult: Codable, Sendable, Equatable {
    public var httpStatus: Int
    public var body: String
    public var isJSON: Bool
    public var location: String?
    public var mediaID: String?
    public var contentHash: String?
    public var verified: String?

    init(_ result: UploadResult) {
        httpStatus = result.httpStatus
        body = result.body
        isJSON = result.isJSON
        location = result.location
        mediaID = result.mediaID
        contentHash = result.contentHash
        verified = result.verified
    }

    var domain: UploadResult {
        var result = UploadResult(
            httpStatus: httpStatus, body: body, isJSON: isJSON, location: location, mediaID: mediaID)
        result.contentHash = contentHash
        result.verified = verified
        return result
    }
}

/// `Preparation` on the wire.
public struct WirePreparation: Codable, Sendable, Equatable {
    public var originalSize: Int64
    public var size: Int64
    public var width: Int
    public var height: Int
    public var remoteName: String

    init(_ preparation: Preparation) {
        originalSize = preparation.originalSize
        size = preparation.size
        width = preparation.width
        height = preparation.height
        remoteName = preparation.remoteName
    }

    var domain: Preparation {
        Preparation(originalSize: originalSize, size: size, width: width, height: height, remoteName: remoteName)
    }
}

/// `UploadError` on the wire; `code` is the case's name, `httpStatus:503` for a bare status.
public struct WireError: Codable, Sendable, Equatable {
    public var code: String
    public var file: String?
    public var httpStatus: Int?
    public var bodyExcerpt: String?
    public var cause: String?
    public var retryAfter: Double?
    public var tokenOrigin: String?

    init(_ error: UploadError) {
        code = Self.name(error.code)
        file = error.file
        httpStatus = error.httpStatus
        bodyExcerpt = error.bodyExcerpt
        cause = error.cause
        retryAfter = error.retryAfter
        tokenOrigin = error.tokenOrigin
    }

    var domain: UploadError {
        UploadError(
            Self.code(code), file: file, httpStatus: httpStatus, bodyExcerpt: bodyExcerpt, cause: cause,
            retryAfter: retryAfter, tokenOrigin: tokenOrigin)
    }

    private static let codes: [UploadError.Code] = [
        .badURL, .requestFailed, .connectionFailed, .invalidResponse, .notFound, .serverError, .decodingFailed,
        .presignMismatch, .fileUnreadable, .folderUnlistable, .fileChanged, .unauthorized, .cancelled, .timedOut,
        .imageUnreadable,
        .imageTooLarge, .preparedCopyUnwritable, .metadataNotStripped, .tlsFailed, .verifyMismatch, .verifyUnavailable,
        .imageNotPrepared,
    ]

    static func name(_ code: UploadError.Code) -> String {
        if case .httpStatus(let status) = code { return "httpStatus:\(status)" }
        // `String(describing:)` of a case without a payload is its name.
        return String(describing: code)
    }

    /// The code a name stands for; an unknown name (a newer run) reads as `requestFailed`, keeping the row's text.
    static func code(_ name: String) -> UploadError.Code {
        if name.hasPrefix("httpStatus:"), let status = Int(name.dropFirst("httpStatus:".count)) {
            return .httpStatus(status)
        }
        return codes.first { String(describing: $0) == name } ?? .requestFailed
    }
}
