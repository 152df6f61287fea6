import Dispatch
import Foundation
import Hummingbird
import Logging

/// The reference server's endpoints: multipart image uploads, raw file `PUT`s, health and stats.
struct UploadRoutes: Sendable {
    /// Absolute, symlink-resolved server root.
    let root: String
    let modelingDelay: Double
    let statistics: StatisticsRecorder
    let faults: FaultInjector
    let manifests: ManifestStore
    let idempotency: IdempotencyStore

    /// Adds the routes to `router`.
    func register(on router: Router<UploadRequestContext>) {
        router.get("healthz") { _, _ in "ok" }
        router.get("_stats") { _, _ in
            JSONResponse.make(status: 200, body: statistics.snapshot)
        }
        router.post("datasets/:id/images") { request, context in
            try await uploadImages(request, context: context)
        }
        router.put("files/**") { request, context in
            try await putFile(request, context: context)
        }
        router.get("files/**") { request, context in
            try await getFile(request, context: context)
        }
        // As for /objects/**: no automatic HEAD for catch-all routes. The ETag is what a client's `--verify` reads.
        router.head("files/**") { request, context in
            try await getFile(request, context: context).createHeadResponse()
        }
    }

    /// `GET /files/{path...}`: the stored bytes with an ETag of their MD5 (as S3 gives for a single PUT).
    func getFile(_ request: Request, context: UploadRequestContext) async throws -> Response {
        let rawPath = context.parameters.getCatchAll().map(StoragePath.percentDecoded).joined(separator: "/")
        let stored = try StoragePath(sanitising: rawPath, baseDirectory: root + "/files", rootRelativeBase: "files")
        let base = StoragePath.resolved(root + "/files")
        let real = StoragePath.resolved(stored.absolutePath)
        var isDirectory: ObjCBool = false
        guard real.hasPrefix(base + "/"), FileManager.default.fileExists(atPath: real, isDirectory: &isDirectory),
            !isDirectory.boolValue
        else {
            throw ReferenceServerError(.notFound, "no such file: \(stored.rootRelativePath)")
        }
        // Hashed per request, off the event loop: files here are few and this is a test peer.
        let md5: String = try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try ObjectRoutes.md5Hex(ofFileAt: real) })
            }
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: real)[.size] as? Int) ?? nil
        var headers: HTTPFields = [.eTag: "\"\(md5)\"", .contentType: "application/octet-stream"]
        if let size { headers[.contentLength] = String(size) }
        return Response(status: .ok, headers: headers, body: try await FileIO().loadFile(path: real, context: context))
    }

    /// `POST /datasets/{id}/images`: stream multipart parts to disk, then run the modeling step;
    /// under the `Idempotency-Key` rules when the request carries one.
    func uploadImages(_ request: Request, context: UploadRequestContext) async throws -> Response {
        let rawID = StoragePath.percentDecoded(try context.parameters.require("id"))
        let datasetID = try StoragePath.sanitiseIdentifier(rawID)
        let boundary = try Self.multipartBoundary(request.headers[.contentType])
        let key = try IdempotencyKey(from: request.headers)
        try await injectFaultIfDrawn(request, context: context)

        return try await idempotency.respond(to: request, key: key, context: context, statistics: statistics) {
            // A repeat is parsed like the first request, so the parts hash alike, but nothing is written.
            let receiver = MultipartReceiver(
                boundary: boundary, baseDirectory: root + "/datasets/" + datasetID,
                rootRelativeBase: "datasets/" + datasetID, storesFiles: false)
            defer { statistics.record { [bytes = context.bodyBytes.value] in $0.bytesReceived += bytes } }
            try await Self.receive(request, into: receiver, context: context)
            return RequestFingerprint(request, parts: receiver.parts)
        } process: {
            try await storeImages(request, context: context, boundary: boundary, datasetID: datasetID)
        }
    }

    /// Stores the parts of an image upload, models them and builds the 201 answer.
    private func storeImages(
        _ request: Request, context: UploadRequestContext, boundary: String, datasetID: String
    ) async throws -> (RecordedResponse, RequestFingerprint) {
        let datasetDirectory = root + "/datasets/" + datasetID
        let receiver = MultipartReceiver(
            boundary: boundary, baseDirectory: datasetDirectory, rootRelativeBase: "datasets/" + datasetID,
            corrupts: faults.corruptsNextFile)
        do {
            try await Self.receive(request, into: receiver, context: context)
        } catch {
            receiver.abort()
            // Parts completed before the failure are already in place: count them, so a client
            // that retries the whole form shows up as storing them twice.
            statistics.record { [bytes = context.bodyBytes.value, stored = receiver.files] in
                $0.bytesReceived += bytes
                for file in stored { $0.recordStored(file.destination.rootRelativePath) }
            }
            throw error
        }
        statistics.record { [bytes = context.bodyBytes.value, stored = receiver.files] in
            $0.bytesReceived += bytes
            for file in stored { $0.recordStored(file.destination.rootRelativePath) }
        }

        let records = try await Self.model(receiver.files)
        if !records.isEmpty {
            try await manifests.merge(records, datasetID: datasetID, directory: datasetDirectory)
        }
        if modelingDelay > 0 {
            try await Task.sleep(for: .seconds(modelingDelay))
        }
        let body = ImageUploadResponse(datasetID: datasetID, files: records, fields: receiver.fields)
        let fingerprint = RequestFingerprint(request, parts: receiver.parts)
        return (.json(status: 201, body: body), fingerprint)
    }

    /// Feeds the whole body to `receiver` and checks that it ended with its closing boundary.
    private static func receive(
        _ request: Request, into receiver: MultipartReceiver, context: UploadRequestContext
    ) async throws {
        for try await chunk in request.body {
            context.bodyBytes.add(chunk.readableBytes)
            try receiver.consume(chunk)
        }
        try receiver.finish()
    }

    /// `PUT /files/{path...}`: stream the raw body to `<root>/files/<path>`; under the
    /// `Idempotency-Key` rules when the request carries one.
    func putFile(_ request: Request, context: UploadRequestContext) async throws -> Response {
        let rawPath = context.parameters.getCatchAll().map(StoragePath.percentDecoded).joined(separator: "/")
        let destination = try StoragePath(
            sanitising: rawPath, baseDirectory: root + "/files", rootRelativeBase: "files")
        let key = try IdempotencyKey(from: request.headers)
        try await injectFaultIfDrawn(request, context: context)

        return try await idempotency.respond(to: request, key: key, context: context, statistics: statistics) {
            let sha256 = try await IdempotencyStore.drainHashing(request, context: context, statistics: statistics)
            return RequestFingerprint(request, bodySHA256: sha256)
        } process: {
            try await storeFile(request, context: context, destination: destination)
        }
    }

    /// Streams a `PUT` body into place and builds the 201 answer.
    private func storeFile(
        _ request: Request, context: UploadRequestContext, destination: StoragePath
    ) async throws -> (RecordedResponse, RequestFingerprint) {
        let sink = try FileSink(destination: destination, corrupt: faults.corruptsNextFile())
        let sha256: String
        do {
            for try await chunk in request.body {
                context.bodyBytes.add(chunk.readableBytes)
                try sink.write(chunk)
            }
            sha256 = try sink.commit()
        } catch {
            sink.abort()
            statistics.record { [bytes = context.bodyBytes.value] in $0.bytesReceived += bytes }
            throw error
        }
        statistics.record { [bytes = context.bodyBytes.value] in
            $0.bytesReceived += bytes
            $0.recordStored(destination.rootRelativePath)
        }
        let body = FileUploadResponse(path: destination.rootRelativePath, size: sink.size, sha256: sha256)
        let fingerprint = RequestFingerprint(request, bodySHA256: sha256)
        return (.json(status: 201, body: body), fingerprint)
    }

    /// Applies the per-request fault draw (see ``FaultInjector/apply(to:context:statistics:)``).
    private func injectFaultIfDrawn(_ request: Request, context: UploadRequestContext) async throws {
        try await faults.apply(to: request, context: context, statistics: statistics)
    }

    /// Extracts the boundary from a `multipart/form-data` content type.
    static func multipartBoundary(_ contentType: String?) throws -> String {
        guard let contentType else {
            throw ReferenceServerError(.notMultipart, "missing Content-Type, expected multipart/form-data")
        }
        let parsed = HeaderValue(parsing: contentType)
        guard parsed.value == "multipart/form-data" else {
            throw ReferenceServerError(.notMultipart, "Content-Type must be multipart/form-data")
        }
        guard let boundary = parsed.parameters["boundary"], !boundary.isEmpty, boundary.utf8.count <= 200 else {
            throw ReferenceServerError(.notMultipart, "multipart boundary missing or invalid")
        }
        return boundary
    }

    /// The modeling step: re-reads each stored file to hash it and sniff its image format and size.
    ///
    /// Runs on a Dispatch queue because hashing a large upload is seconds of blocking reads and
    /// CPU, which would otherwise starve the cooperative thread pool serving other connections.
    static func model(_ files: [ReceivedFile]) async throws -> [StoredFileRecord] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(
                    with: Result {
                        try files.map { file in
                            let report = try ImageInspector.inspect(path: file.destination.absolutePath)
                            return StoredFileRecord(
                                field: file.field, filename: file.filename,
                                path: file.destination.rootRelativePath,
                                contentType: file.contentType, report: report)
                        }
                    })
            }
        }
    }
}
