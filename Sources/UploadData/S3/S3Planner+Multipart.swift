import Foundation
import UploadDomain

/// One S3 multipart upload: create, parts streamed from disk in parallel, complete; abort on any failure or cancel.
struct MultipartUpload {
    let planner: S3Planner
    let item: UploadItem
    let transport: any UploadTransport
    let probe: TransferProbe
    /// The `--concurrency` pool: the file's own slot carries one part; more parts run only on free slots.
    let slots: TransferSlots

    private var objectURL: String {
        planner.endpoint.objectURL(bucket: planner.location.bucket, key: planner.key(for: item))
    }

    private func url(_ query: [(String, String)]) -> String {
        planner.endpoint.objectURL(bucket: planner.location.bucket, key: planner.key(for: item), query: query)
    }

    func run() async throws -> TransferResponse {
        probe.expect(total: item.size)
        let create = planner.signed(
            "POST", url([("uploads", "")]), headers: [("Content-Type", item.contentType)],
            payloadHash: SigV4Signer.emptyPayloadHash, body: .bytes([], contentType: item.contentType))
        let created = try await transport.send(create, probe: TransferProbe())
        if let error = S3XML.error(created, file: item.relativePath, during: "starting the multipart upload") {
            throw error
        }
        guard let uploadID = S3XML.value(of: "UploadId", in: created.body) else {
            throw UploadError(.decodingFailed, file: item.relativePath, cause: "no UploadId in the multipart answer")
        }
        do {
            let parts = try await uploadParts(uploadID)
            let xml = Array(S3XML.completion(parts).utf8)
            let complete = planner.signed(
                "POST", url([("uploadId", uploadID)]), headers: [],
                payloadHash: SigV4Signer.payloadHash(of: xml), body: .bytes(xml, contentType: "application/xml"))
            let completed = try await transport.send(complete, probe: TransferProbe())
            if let error = S3XML.error(completed, file: item.relativePath, during: "completing the multipart upload") {
                throw error
            }
            return completed
        } catch {
            await abort(uploadID)
            throw error
        }
    }

    private func uploadParts(_ uploadID: String) async throws -> [(number: Int, etag: String)] {
        let count = Int((item.size + planner.partSize - 1) / planner.partSize)
        var extraSlots = 0
        defer { for _ in 0..<extraSlots { slots.release() } }
        return try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var next = 1
            var inFlight = 0
            var done: [(number: Int, etag: String)] = []
            /// Starts parts while the file's own slot or a free one allows; gives back slots it no longer needs.
            func fill() {
                while next <= count, inFlight < planner.partConcurrency {
                    if inFlight >= 1 + extraSlots {
                        guard slots.tryAcquire() else { break }
                        extraSlots += 1
                    }
                    let number = next
                    group.addTask { (number, try await uploadPart(number, uploadID: uploadID)) }
                    next += 1
                    inFlight += 1
                }
                while extraSlots > max(0, inFlight - 1) {
                    extraSlots -= 1
                    slots.release()
                }
            }
            fill()
            while let (number, etag) = try await group.next() {
                done.append((number, etag))
                inFlight -= 1
                fill()
            }
            return done.sorted { $0.number < $1.number }
        }
    }

    private func uploadPart(_ number: Int, uploadID: String) async throws -> String {
        let offset = Int64(number - 1) * planner.partSize
        let length = min(planner.partSize, item.size - offset)
        let digest = try FileDigest.of(item, offset: offset, length: length)
        let request = planner.signed(
            "PUT", url([("partNumber", String(number)), ("uploadId", uploadID)]),
            headers: [("Content-MD5", digest.md5Base64)], payloadHash: digest.sha256Hex,
            body: .fileRange(item, offset: offset, length: length, contentType: nil))
        let response = try await transport.send(request, probe: TransferProbe(partOf: probe))
        if let error = S3XML.error(response, file: item.relativePath, during: "uploading part \(number)") {
            throw error
        }
        guard let etag = response.headers["etag"] else {
            throw UploadError(
                .invalidResponse, file: item.relativePath, cause: "part \(number) came back without an ETag")
        }
        return etag
    }

    /// Runs outside the (possibly cancelled) upload task, so the abort itself is not cancelled.
    private func abort(_ uploadID: String) async {
        let request = planner.signed(
            "DELETE", url([("uploadId", uploadID)]), headers: [], payloadHash: SigV4Signer.emptyPayloadHash,
            body: .bytes([], contentType: "application/xml"))
        let transport = self.transport
        _ = await Task { try? await transport.send(request, probe: TransferProbe()) }.value
    }
}
