import Foundation
import UploadDomain

/// S3: a SigV4-signed PUT per file, or a multipart upload (create, parts in parallel, complete) above a threshold.
public struct S3Planner: RequestPlanner {
    public let location: S3Location
    public let endpoint: S3Endpoint
    public let signer: SigV4Signer
    public let multipartThreshold: Int64
    public let partSize: Int64
    /// Parts of one file in flight at once, at most; each beyond the first also needs a free slot of the cap.
    public let partConcurrency: Int
    /// Where multipart uploads are noted, so a later run continues them (issue 5); nil records nothing.
    public var checkpoints: (any MultipartCheckpoints)?
    /// The checksum algorithm new uploads name.
    public var checksumAlgorithm = S3ChecksumAlgorithm.crc32
    /// How a part that failed on what another attempt may cure is sent again, within the same upload.
    public var partRetries = RetryPolicy(maxRetries: 0)
    /// The user's headers (`-H`): signed and sent with each object's PUT or multipart creation, where S3 keeps
    /// them (`Cache-Control`, `x-amz-meta-*`, `x-amz-acl`…); a `Content-Type` among them replaces the file's.
    public var userHeaders: [HTTPHeader] = []

    /// Headers the signature sets, which a user's `-H` cannot.
    public static let signatureHeaders: Set<String> = [
        "authorization", "host", "x-amz-date", "x-amz-content-sha256", "x-amz-security-token",
        "x-amz-sdk-checksum-algorithm", "x-amz-checksum-algorithm", "content-length", "content-md5", "expect",
        "transfer-encoding",
    ]

    /// The name of the first of `headers` the signature sets, if any.
    public static func reservedHeader(in headers: [HTTPHeader]) -> String? {
        headers.first {
            let name = $0.name.lowercased()
            return signatureHeaders.contains(name) || name.hasPrefix("x-amz-checksum-")
        }?.name
    }

    /// What an object is stored as: its Content-Type (the user's, else the file's) and the user's other headers.
    func objectHeaders(for item: UploadItem) -> [(String, String)] {
        let type = userHeaders.last { $0.name.lowercased() == "content-type" }?.value ?? item.contentType
        return [("Content-Type", type)]
            + userHeaders.filter { $0.name.lowercased() != "content-type" }.map { ($0.name, $0.value) }
    }
    public var batchSize: Int { 1 }

    /// Creates a planner.
    public init(
        location: S3Location, endpoint: S3Endpoint, signer: SigV4Signer, multipartThreshold: Int64, partSize: Int64,
        partConcurrency: Int
    ) {
        self.location = location
        self.endpoint = endpoint
        self.signer = signer
        self.multipartThreshold = multipartThreshold
        self.partSize = max(5 << 20, partSize)
        self.partConcurrency = max(1, partConcurrency)
    }

    /// S3's limits: parts are numbered 1 to 10,000; one PUT carries at most 5 GiB.
    static let maxParts: Int64 = 10_000
    static let maxSinglePut: Int64 = 5 << 30

    /// The part size `item` is cut by: `partSize`, grown (to whole MiB) where the file would need more than
    /// 10,000 parts, as the aws CLI and rclone do, rather than failing at part 10,001 after everything before it.
    func partSize(for item: UploadItem) -> Int64 {
        let least = (item.size + Self.maxParts - 1) / Self.maxParts
        return max(partSize, (least + (1 << 20) - 1) / (1 << 20) * (1 << 20))
    }

    /// Whether `item` goes as a multipart upload: from the threshold, and always above what one PUT may carry.
    func usesMultipart(_ item: UploadItem) -> Bool {
        item.size >= multipartThreshold || item.size > Self.maxSinglePut
    }

    /// The byte ranges of `item`'s parts in a multipart upload, in part order.
    func partRanges(of item: UploadItem) -> [(offset: Int64, length: Int64)] {
        let size = partSize(for: item)
        return stride(from: Int64(0), to: item.size, by: Int(size)).map { ($0, min(size, item.size - $0)) }
    }

    /// The object key of a file: the prefix plus its relative path.
    public func key(for item: UploadItem) -> String { location.key(for: item.relativePath) }

    public func destination(of item: UploadItem) -> String { "s3://\(location.bucket)/\(key(for: item))" }

    /// The destination with its custom endpoint: the same bucket and key on another server (MinIO for staging, AWS
    /// for production) is another place, whose rerun must not skip what only the first holds.
    public func journalDestination(of item: UploadItem) -> String {
        guard let custom = endpoint.customURL else { return destination(of: item) }
        return destination(of: item) + " at " + Redactor.journalURL(custom)
    }

    public func curlCommand(for item: UploadItem) -> String {
        let url = endpoint.objectURL(bucket: location.bucket, key: key(for: item))
        let token = signer.credentials.sessionToken == nil ? "" : "-H \"x-amz-security-token: $AWS_SESSION_TOKEN\" "
        // A secret header (an SSE-C key) is left out, as the other planners leave it out.
        let headers = objectHeaders(for: item).map { name, value in
            "-H " + ShellQuote.quote("\(name): \(Redactor.isSecretName(name) ? "REDACTED" : value)") + " "
        }.joined()
        let globoff = ShellQuote.globoff(item.path, url).map { $0 + " " }.joined()
        return "curl --fail-with-body \(globoff)--aws-sigv4 'aws:amz:\(signer.region):s3' "
            + "--user \"$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY\" \(token)-T \(ShellQuote.quote(item.path)) "
            + headers + ShellQuote.quote(Redactor.url(url))
    }

    /// The single-PUT request, carrying the file's checksum and signed over its SHA-256 where the payload is signed.
    public func request(for items: [UploadItem]) async throws(UploadError) -> TransferRequest {
        let item = items[0]
        let digest = try await PayloadDigest.computed(item, algorithm: checksumAlgorithm, signed: signsPayload)
        let url = endpoint.objectURL(bucket: location.bucket, key: key(for: item))
        let headers = objectHeaders(for: item)
        return signed(
            "PUT", url, headers: headers + Self.checksumHeaders(digest, checksumAlgorithm),
            payloadHash: digest.payloadHash, body: .file(item, contentType: headers[0].1))
    }

    /// Whether bodies are signed (`x-amz-content-sha256` their SHA-256): over plain HTTP only. Over HTTPS, as with the
    /// aws CLI and the SDKs, TLS guards the bytes on the way and S3 checks them against the signed checksum header,
    /// so the SHA-256 of every byte would buy nothing.
    var signsPayload: Bool { !endpoint.usesTLS }

    /// The headers that give a body's checksum.
    static func checksumHeaders(_ digest: PayloadDigest, _ algorithm: S3ChecksumAlgorithm) -> [(String, String)] {
        [("x-amz-sdk-checksum-algorithm", algorithm.rawValue), (algorithm.header, digest.base64)]
    }

    public func upload(
        _ items: [UploadItem], via transport: any UploadTransport, probe: TransferProbe, slots: TransferSlots
    ) async throws -> TransferResponse {
        let item = items[0]
        let upload = MultipartUpload(planner: self, item: item, transport: transport, probe: probe, slots: slots)
        guard usesMultipart(item) else {
            let response = try await transport.send(try await request(for: items), probe: probe)
            if let error = S3XML.error(response, file: item.relativePath) { throw error }
            // A multipart upload an earlier run kept for the file (a lower threshold then) will never complete.
            await upload.abandonEarlier()
            return response
        }
        return try await upload.run()
    }

    public func results(for items: [UploadItem], response: TransferResponse) -> [UploadResult] {
        items.map { item in
            var fields: [String: Any] = ["bucket": location.bucket, "key": key(for: item)]
            fields["etag"] = response.headers["etag"] ?? S3XML.value(of: "ETag", in: response.body)
            return UploadResult(
                httpStatus: response.status, body: CompactJSON.text(fields) ?? "{}", isJSON: true,
                location: key(for: item))
        }
    }

    /// S3's codes that no file of the batch would escape: the bucket, its region or the credentials.
    static let batchWideCodes = [
        "NoSuchBucket", "PermanentRedirect", "AuthorizationHeaderMalformed", "InvalidAccessKeyId",
        "SignatureDoesNotMatch", "InvalidBucketName", "ExpiredToken", "InvalidToken",
    ]

    public func failsEveryFile(_ error: UploadError) -> Bool {
        // One endpoint for every object: a certificate refused there is refused for all.
        if error.code == .tlsFailed { return true }
        guard let excerpt = error.bodyExcerpt else { return false }
        return Self.batchWideCodes.contains { excerpt.hasPrefix($0 + ":") || excerpt == $0 }
    }

    /// The failure an S3 answer carries, named by S3's code and message (`NoSuchBucket: The specified bucket does not
    /// exist`), or nil.
    public static func error(in response: TransferResponse, file: String) -> UploadError? {
        S3XML.error(response, file: file)
    }

    /// A signed DeleteObject for a key under the prefix (seed 002: replace = delete, then upload).
    public func deleteRequest(relativeKey: String) -> TransferRequest {
        let url = endpoint.objectURL(bucket: location.bucket, key: location.key(for: relativeKey))
        return signed(
            "DELETE", url, headers: [], payloadHash: SigV4Signer.emptyPayloadHash,
            body: .bytes([], contentType: "application/octet-stream"))
    }

    /// A request with SigV4 headers; `headers` are signed and sent (Content-Type travels with the body).
    func signed(
        _ method: String, _ url: String, headers: [(String, String)], payloadHash: String, body: TransferRequest.Body
    ) -> TransferRequest {
        let added = signer.sign(method: method, url: url, headers: headers, payloadHash: payloadHash, date: Date())
        let sent = (headers.filter { $0.0.lowercased() != "content-type" } + added).compactMap {
            HTTPHeader(name: $0.0, value: $0.1)
        }
        return TransferRequest(
            method: TransferRequest.Method(rawValue: method)!, url: url, headers: sent, bearerToken: nil,
            body: body)
    }
}
