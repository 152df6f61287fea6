import Foundation
import UploadDomain

// How each destination reads back what it stored (`--verify`).

extension MultipartPlanner {
    /// One file per request: the answer's `sha256` then belongs to it alone.
    public var verifyRefusal: String? {
        batchSize == 1
            ? nil : "the server answers a --batch request once for all its files; drop --batch to verify each"
    }

    /// By the `sha256` the server's answer reports (`files[0].sha256`, or `sha256` at the top), as the reference
    /// server gives; a multipart route has no URL to read the file back from.
    public func verify(_ items: [UploadItem], response: TransferResponse, via transport: any UploadTransport) async
        -> [Verification]
    {
        let json = try? JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
        let listed = (json?["files"] as? [[String: Any]]).flatMap { $0.count == items.count ? $0 : nil }
        return items.enumerated().map { index, item in
            let stored = (listed?[index]["sha256"] as? String) ?? (items.count == 1 ? json?["sha256"] as? String : nil)
            guard let stored else {
                return .unavailable("the server's answer names no sha256", file: item.relativePath)
            }
            do throws(UploadError) {
                let local = try FileDigest.of(item)
                return .compare(kind: "sha256", sent: local.sha256Hex, stored: stored, file: item.relativePath)
            } catch {
                return .failed(error)
            }
        }
    }
}

extension PutPlanner {
    public var verifyRefusal: String? { nil }

    /// A `HEAD` of the file's URL for an MD5 ETag, else a `GET` hashed as it streams (WebDAV, nginx).
    public func verify(_ items: [UploadItem], response: TransferResponse, via transport: any UploadTransport) async
        -> [Verification]
    {
        // The user's headers (auth) go along; the Idempotency-Key is for uploads only.
        var outcomes: [Verification] = []
        for item in items {
            outcomes.append(
                await ReadBack.compare(item, at: url(for: item), headers: headers, token: token, via: transport))
        }
        return outcomes
    }
}

extension PresignPlanner {
    public var verifyRefusal: String? { nil }

    /// The ETag the PUT's answer gave (an MD5, as S3 gives for a single PUT), else a `HEAD` of the object at the
    /// ticket's URL for it. A ticket on the API's own origin is read with the bearer token the API takes (a ticket
    /// authorises its PUT only); one elsewhere (a storage service) never gets the token.
    public func verify(_ items: [UploadItem], response: TransferResponse, via transport: any UploadTransport) async
        -> [Verification]
    {
        // S3 signs a presigned URL for its method alone: a HEAD of a PUT ticket is refused there, while the PUT's
        // answer already names what was stored.
        if items.count == 1, let item = items.first, let etag = response.etag, ReadBack.isMD5(etag) {
            return [ReadBack.compare(item, md5ETag: etag)]
        }
        var outcomes: [Verification] = []
        let apiOrigin = MultiplexedOrigins.origin(of: endpoint)
        for item in items {
            guard let url = ticketURL(for: item) else {
                outcomes.append(.unavailable("no upload ticket to read back from", file: item.relativePath))
                continue
            }
            let token = MultiplexedOrigins.origin(of: url) == apiOrigin ? token : nil
            outcomes.append(await ReadBack.compare(item, at: url, headers: [], token: token, via: transport))
        }
        return outcomes
    }
}

extension S3Planner {
    public var verifyRefusal: String? { nil }

    /// A signed `HEAD` of the key asking for its checksum. An object uploaded with one (every upload here) is checked
    /// against it: the file's CRC-32 or SHA-256, or for a multipart upload that of the parts' with `-N`. Other
    /// objects (an older version's, a server without checksums) by their ETag: the file's MD5, or the MD5 of the
    /// parts' MD5s with `-N`. Both are recomputed here with the same part size.
    public func verify(_ items: [UploadItem], response: TransferResponse, via transport: any UploadTransport) async
        -> [Verification]
    {
        var outcomes: [Verification] = []
        for item in items {
            outcomes.append(await verify(item, via: transport))
        }
        return outcomes
    }

    private func verify(_ item: UploadItem, via transport: any UploadTransport) async -> Verification {
        let file = item.relativePath
        let url = endpoint.objectURL(bucket: location.bucket, key: key(for: item))
        let head = signed(
            "HEAD", url, headers: [("x-amz-checksum-mode", "ENABLED")], payloadHash: SigV4Signer.emptyPayloadHash,
            body: .none)
        let answer: TransferResponse
        switch await ReadBack.send(head, file: file, via: transport) {
        case .verdict(let failure): return failure
        case .response(let response): answer = response
        }
        do throws(UploadError) {
            if let algorithm = S3ChecksumAlgorithm.allCases.first(where: { answer.headers[$0.header] != nil }),
                let stored = answer.headers[algorithm.header]
            {
                let trimmed = stored.trimmingCharacters(in: .whitespaces)
                guard let storedHex = S3Checksum.hex(ofStored: trimmed, algorithm: algorithm) else {
                    return .unavailable("HEAD of the object named a malformed checksum", file: file)
                }
                let expected = try S3Checksum.expected(for: item, planner: self, algorithm: algorithm)
                let kind = expected.contains("-") ? "\(algorithm.kind)-parts" : algorithm.kind
                // S3 adds the count of parts to a multipart object's checksum; some servers (moto) do not.
                let sent = storedHex.contains("-") ? expected : String(expected.prefix { $0 != "-" })
                return .compare(kind: kind, sent: sent, stored: storedHex, file: file)
            }
            guard let etag = answer.etag else {
                return .unavailable("HEAD of the object named neither a checksum nor an ETag", file: file)
            }
            let expected = try S3ETag.expected(for: item, planner: self)
            return .compare(kind: expected.contains("-") ? "etag" : "md5", sent: expected, stored: etag, file: file)
        } catch {
            return .failed(error)
        }
    }
}
