import Crypto
import Dispatch
import Foundation
import Hummingbird
import NIOCore

/// The presigned-URL object store (seed 000): `POST /presigned-urls` hands out signed upload
/// tickets, `PUT /objects/{key...}` accepts the bytes on the strength of the signature alone, and
/// `GET`/`HEAD`/`DELETE /objects/{key...}` read and remove them (seed 002: replace = delete, upload).
///
/// Objects are stored under `<root>/objects/<key>`; keys are `media/<mediaType>/<mediaID>/<filename>`.
struct ObjectRoutes: Sendable {
    /// Absolute, symlink-resolved server root.
    let root: String
    let ticketTTL: Double
    let presignCountMismatch: Bool
    let presignExpiredTickets: Bool
    let signer: TicketSigner
    let store: ObjectStore
    let statistics: StatisticsRecorder
    let faults: FaultInjector
    let idempotency: IdempotencyStore

    /// Most items one presign request may ask for.
    static let maximumItems = 1000
    /// Largest presign request body read.
    static let maximumRequestBytes = 4 << 20

    private var objectsDirectory: String { root + "/objects" }

    /// Adds the routes to `router`.
    func register(on router: Router<UploadRequestContext>) {
        router.post("presigned-urls") { request, context in
            try await presign(request, context: context)
        }
        router.put("objects/**") { request, context in
            try await putObject(request, context: context)
        }
        router.get("objects/**") { request, context in
            try await getObject(request, context: context)
        }
        // Hummingbird's automatic HEAD-from-GET does not cover catch-all routes: same headers, no body.
        router.head("objects/**") { request, context in
            try await getObject(request, context: context).createHeadResponse()
        }
        router.delete("objects/**") { request, context in
            try await deleteObject(request, context: context)
        }
    }

    // MARK: - POST /presigned-urls

    func presign(_ request: Request, context: UploadRequestContext) async throws -> Response {
        await ContinueExpectationHandler.sendContinueIfPending(on: context.channel)
        let buffer = try await request.body.collect(upTo: Self.maximumRequestBytes)
        context.bodyBytes.add(buffer.readableBytes)
        statistics.record { [bytes = buffer.readableBytes] in $0.bytesReceived += bytes }
        let items = try Self.validatedItems(Data(buffer.readableBytesView))

        let baseURL = Self.baseURL(for: context.channel, request: request)
        let now = Date().timeIntervalSince1970
        var issued: [PresignResponse.Item] = []
        for item in items {
            let mediaID = UUID().uuidString.lowercased()
            var expires = Int((now + ticketTTL).rounded(.down))
            if presignExpiredTickets, store.isFirstTicket(for: item.filename) {
                expires = Int(now.rounded(.down)) - 60
            }
            let claims = TicketClaims(
                key: "media/\(item.mediaType)/\(mediaID)/\(item.storedName)", expires: expires,
                contentType: item.contentType, maxBytes: item.size ?? 0)
            issued.append(.init(
                mediaID: mediaID, uploadTicket: signer.ticketURL(baseURL: baseURL, claims: claims),
                contentType: item.contentType, key: claims.key))
        }
        if presignCountMismatch {
            issued.removeLast()
        }
        statistics.record { [count = issued.count] in $0.ticketsIssued += count }
        return JSONResponse.make(status: 201, body: PresignResponse(data: .init(items: issued)))
    }

    /// One requested item after validation.
    struct ValidItem: Equatable {
        var filename: String
        var storedName: String
        var contentType: String
        var mediaType: String
        var size: Int?
    }

    /// Decodes and checks a presign request body; throws 400 `invalidRequest` naming the problem.
    static func validatedItems(_ body: Data) throws -> [ValidItem] {
        let decoded: PresignRequest
        do {
            decoded = try JSONDecoder().decode(PresignRequest.self, from: body)
        } catch let error as DecodingError {
            throw ReferenceServerError(.invalidRequest, describe(error))
        }
        guard let items = decoded.items else {
            throw ReferenceServerError(.invalidRequest, "missing items")
        }
        guard !items.isEmpty else {
            throw ReferenceServerError(.invalidRequest, "items must not be empty")
        }
        guard items.count <= maximumItems else {
            throw ReferenceServerError(
                .invalidRequest, "too many items (\(items.count)); at most \(maximumItems) per request")
        }
        return try items.enumerated().map { index, item in
            let name = "items[\(index)]"
            guard let filename = item.filename, !filename.isEmpty else {
                throw ReferenceServerError(.invalidRequest, "\(name).filename is required")
            }
            // One component: a `/` in the filename becomes `_` rather than a folder.
            guard let storedName = StoragePath.sanitiseComponent(filename) else {
                throw ReferenceServerError(.invalidRequest, "\(name).filename has no usable characters")
            }
            guard storedName.utf8.count <= StoragePath.maximumComponentBytes else {
                throw ReferenceServerError(.invalidRequest, "\(name).filename is too long")
            }
            guard let contentType = item.contentType, !contentType.isEmpty else {
                throw ReferenceServerError(.invalidRequest, "\(name).contentType is required")
            }
            guard contentType.unicodeScalars.allSatisfy({ (0x20..<0x7F).contains($0.value) }) else {
                throw ReferenceServerError(.invalidRequest, "\(name).contentType must be printable ASCII")
            }
            let mediaType: String
            do {
                mediaType = try StoragePath.sanitiseIdentifier(item.mediaType ?? "default")
            } catch {
                throw ReferenceServerError(.invalidRequest, "\(name).mediaType is invalid")
            }
            if let size = item.size, size < 0 {
                throw ReferenceServerError(.invalidRequest, "\(name).size must not be negative")
            }
            return ValidItem(
                filename: filename, storedName: storedName, contentType: contentType,
                mediaType: mediaType, size: item.size)
        }
    }

    /// A short reason for a JSON decoding failure, naming the offending field.
    static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : "." + key.stringValue
                }
            }
            return text
        }
        switch error {
        case .typeMismatch(let type, let context), .valueNotFound(let type, let context):
            let field = path(context.codingPath)
            if field.isEmpty { return "body must be a JSON object" }
            return "\(field) must be \(type == String.self ? "a string" : type == Int.self ? "an integer" : "\(type)")"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is required"
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            return field.isEmpty ? "body is not valid JSON" : "\(field) is invalid"
        @unknown default:
            return "body is not a valid presign request"
        }
    }

    /// `http://<address the client reached>:<port>`: the connection's local address, so tickets
    /// work with `--port 0` and behind `--host 0.0.0.0`.
    static func baseURL(for channel: any Channel, request: Request) -> String {
        if let address = channel.localAddress, let ip = address.ipAddress, let port = address.port {
            let host = ip.contains(":") ? "[\(ip)]" : ip
            return "http://\(host):\(port)"
        }
        return "http://" + (request.head.authority ?? "127.0.0.1")
    }

    // MARK: - PUT /objects/{key...}

    /// Checks the ticket, then stores the body; under the `Idempotency-Key` rules when the request
    /// carries one (presigned clients need none: a ticket's key names one object already).
    func putObject(_ request: Request, context: UploadRequestContext) async throws -> Response {
        let key = Self.key(from: context)
        let idempotencyKey = try IdempotencyKey(from: request.headers)
        let query = request.uri.queryParameters
        guard let expiresText = query["expires"], let expires = Int(expiresText),
            let contentType = query["ct"],
            let maxText = query["max"], let maxBytes = Int(maxText), maxBytes >= 0,
            let signature = query["sig"]
        else {
            try await refuse(
                .authorizationQueryParametersError, "expires, ct, max and sig query parameters are required",
                request, context: context)
        }
        let claims = TicketClaims(key: key, expires: expires, contentType: String(contentType), maxBytes: maxBytes)
        guard signer.isValid(signature: String(signature), for: claims) else {
            try await refuse(.signatureDoesNotMatch, "the ticket signature does not match", request, context: context)
        }
        guard Double(expires) > Date().timeIntervalSince1970 else {
            try await refuse(.requestExpired, "the ticket expired at \(expires)", request, context: context)
        }
        guard request.headers[.contentType] == claims.contentType else {
            try await refuse(
                .contentTypeMismatch, "Content-Type must be exactly \(claims.contentType)", request, context: context)
        }
        if maxBytes > 0, let length = request.headers[.contentLength].flatMap({ Int($0) }), length > maxBytes {
            try await refuse(
                .entityTooLarge, "body of \(length) bytes exceeds the ticket's \(maxBytes)", request, context: context)
        }
        let destination = try StoragePath(
            sanitising: key, baseDirectory: objectsDirectory, rootRelativeBase: "objects")
        guard destination.components.joined(separator: "/") == key else {
            throw ReferenceServerError(.invalidPath, "object key is not in canonical form")
        }
        try await faults.apply(to: request, context: context, statistics: statistics)

        return try await idempotency.respond(
            to: request, key: idempotencyKey, context: context, statistics: statistics
        ) {
            let sha256 = try await IdempotencyStore.drainHashing(request, context: context, statistics: statistics)
            return RequestFingerprint(request, bodySHA256: sha256)
        } process: {
            try await storeObject(request, context: context, claims: claims, destination: destination)
        }
    }

    /// Streams an object's body into place (refusing one larger than its ticket) and builds the
    /// 200 answer with its ETag.
    private func storeObject(
        _ request: Request, context: UploadRequestContext, claims: TicketClaims, destination: StoragePath
    ) async throws -> (RecordedResponse, RequestFingerprint) {
        let key = claims.key
        let maxBytes = claims.maxBytes
        let sink = try FileSink(destination: destination, corrupt: faults.corruptsNextFile())
        var tooLarge = false
        do {
            for try await chunk in request.body {
                context.bodyBytes.add(chunk.readableBytes)
                if tooLarge { continue }  // keep reading so the client sees the 403, not a send error
                if maxBytes > 0, sink.size + chunk.readableBytes > maxBytes {
                    tooLarge = true
                    sink.abort()
                    continue
                }
                try sink.write(chunk)
            }
        } catch {
            sink.abort()
            statistics.record { [bytes = context.bodyBytes.value] in $0.bytesReceived += bytes }
            throw error
        }
        if tooLarge {
            statistics.record { [bytes = context.bodyBytes.value] in
                $0.bytesReceived += bytes
                $0.ticketsRejected += 1
            }
            throw ReferenceServerError(
                .entityTooLarge, "EntityTooLarge: body exceeds the ticket's \(maxBytes) bytes")
        }
        // Of the bytes stored, which `--corrupt-rate` may have spoilt: what a HEAD reports later.
        let etag = "\"" + sink.md5Hex + "\""
        let sha256: String
        do {
            sha256 = try store.commit(sink, key: key, metadata: .init(contentType: claims.contentType, etag: etag))
        } catch {
            statistics.record { [bytes = context.bodyBytes.value] in $0.bytesReceived += bytes }
            throw error
        }
        statistics.record { [bytes = context.bodyBytes.value] in
            $0.bytesReceived += bytes
            $0.recordStored(destination.rootRelativePath)
        }
        let response = RecordedResponse.json(
            status: 200, body: ObjectUploadResponse(key: key, size: sink.size, sha256: sha256, etag: etag),
            headers: [.eTag: etag])
        let fingerprint = RequestFingerprint(request, bodySHA256: sha256)
        return (response, fingerprint)
    }

    /// Refuses a ticket with 403: counts it, reads the body away unless the client is still
    /// waiting for `100 Continue` (then it never sends it), and throws the S3-named error.
    private func refuse(
        _ code: ReferenceServerError.Code, _ message: String, _ request: Request, context: UploadRequestContext
    ) async throws -> Never {
        if !request.head.expectsContinue {
            for try await chunk in request.body {
                context.bodyBytes.add(chunk.readableBytes)
            }
        }
        statistics.record { [bytes = context.bodyBytes.value] in
            $0.ticketsRejected += 1
            $0.bytesReceived += bytes
        }
        throw ReferenceServerError(code, "\(code.rawValue): \(message)")
    }

    // MARK: - GET / HEAD / DELETE /objects/{key...}

    func getObject(_ request: Request, context: UploadRequestContext) async throws -> Response {
        let (key, path) = try existingObject(context)
        let metadata = try await metadata(key: key, path: path)
        var headers: HTTPFields = [.eTag: metadata.etag]
        if let ifNoneMatch = request.headers[.ifNoneMatch], Self.matches(ifNoneMatch: ifNoneMatch, etag: metadata.etag) {
            return Response(status: .notModified, headers: headers)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        let body = try await FileIO().loadFile(path: path, context: context)
        headers[.contentType] = metadata.contentType
        if let size { headers[.contentLength] = String(size) }
        return Response(status: .ok, headers: headers, body: body)
    }

    func deleteObject(_ request: Request, context: UploadRequestContext) async throws -> Response {
        let (key, path) = try existingObject(context)
        do {
            try store.remove(key: key, path: path)
        } catch {
            throw ReferenceServerError(.storageFailed, "cannot delete \(key)")
        }
        pruneEmptyFolders(above: path)
        return Response(status: .noContent)
    }

    /// The object key named by the request path (percent-decoded, empty segments dropped).
    static func key(from context: UploadRequestContext) -> String {
        context.parameters.getCatchAll().map(StoragePath.percentDecoded).joined(separator: "/")
    }

    /// The key and real path of an existing regular file inside `<root>/objects/`, else 404.
    private func existingObject(_ context: UploadRequestContext) throws -> (key: String, path: String) {
        let requested = Self.key(from: context)
        let destination = try StoragePath(
            sanitising: requested, baseDirectory: objectsDirectory, rootRelativeBase: "objects")
        let key = destination.components.joined(separator: "/")
        let base = StoragePath.resolved(objectsDirectory)
        let real = StoragePath.resolved(destination.absolutePath)
        var isDirectory: ObjCBool = false
        guard real.hasPrefix(base + "/"),
            FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory), !isDirectory.boolValue
        else {
            throw ReferenceServerError(.notFound, "no such object: \(key)")
        }
        return (key, real)
    }

    /// Recorded metadata, or for an object not uploaded since start: octet-stream and the MD5 of
    /// its bytes.
    private func metadata(key: String, path: String) async throws -> ObjectStore.Metadata {
        if let known = store.metadata(for: key) { return known }
        let digest: String = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try Self.md5Hex(ofFileAt: path) })
            }
        }
        return store.remember(.init(contentType: "application/octet-stream", etag: "\"\(digest)\""), for: key)
    }

    static func md5Hex(ofFileAt path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ReferenceServerError(.notFound, "object vanished")
        }
        defer { try? handle.close() }
        var md5 = Insecure.MD5()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            md5.update(data: chunk)
        }
        return md5.finalize().hexString
    }

    /// Removes now-empty folders between a deleted object and `<root>/objects`.
    private func pruneEmptyFolders(above path: String) {
        let base = StoragePath.resolved(objectsDirectory)
        var folder = (path as NSString).deletingLastPathComponent
        while folder.hasPrefix(base + "/"), rmdir(folder) == 0 {
            folder = (folder as NSString).deletingLastPathComponent
        }
    }

    /// `If-None-Match` semantics: `*` or any listed (weak or strong) tag equal to `etag`.
    static func matches(ifNoneMatch header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag == "*" { return true }
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }
}

/// `POST /presigned-urls` request body.
struct PresignRequest: Decodable {
    struct Item: Decodable {
        var filename: String?
        var contentType: String?
        var mediaType: String?
        var size: Int?
    }

    var items: [Item]?
}

/// `POST /presigned-urls` response body: `{"data":{"items":[...]}}`.
struct PresignResponse: Encodable {
    struct Item: Encodable {
        var mediaID: String
        var uploadTicket: String
        var contentType: String
        var key: String
    }

    struct Payload: Encodable {
        var items: [Item]
    }

    var data: Payload
}

/// `PUT /objects/...` response body.
struct ObjectUploadResponse: Encodable {
    var key: String
    var size: Int
    var sha256: String
    var etag: String
}
