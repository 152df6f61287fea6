import Foundation
import UploadDomain

/// Reading back a stored file for `--verify`: a `HEAD` for its ETag, or a `GET` hashed as it streams.
enum ReadBack {
    /// What the server holds at `url`, compared with `item`'s bytes: the ETag when it is an MD5 (32 hex digits, as
    /// S3 and the reference server give), else the SHA-256 of a `GET` of the whole object (nginx's ETag is its
    /// mtime and size).
    static func compare(
        _ item: UploadItem, at url: String, headers: [HTTPHeader], token: String?, via transport: any UploadTransport
    ) async -> Verification {
        let file = item.relativePath
        let local: FileDigest
        do throws(UploadError) {
            local = try FileDigest.of(item)
        } catch {
            return .failed(error)
        }
        let head = TransferRequest(method: .head, url: url, headers: headers, bearerToken: token, body: .none)
        switch await send(head, file: file, via: transport) {
        case .verdict(let failure): return failure
        case .response(let response):
            if let etag = response.etag, isMD5(etag) {
                return .compare(kind: "md5", sent: local.md5Hex, stored: etag, file: file)
            }
        }
        var get = TransferRequest(method: .get, url: url, headers: headers, bearerToken: token, body: .none)
        get.digestsResponseBody = true
        switch await send(get, file: file, via: transport) {
        case .verdict(let failure): return failure
        case .response(let response):
            guard let digest = response.bodyDigest else {
                return .unavailable("the read-back (GET) returned no body", file: file)
            }
            return .compare(kind: "sha256", sent: local.sha256Hex, stored: digest.sha256, file: file)
        }
    }

    /// Sends a read-back request. A transport failure, or a status another attempt may cure (5xx, 429), fails the
    /// file with that error, named as the read-back's, so the retry policy treats it as any other; a refusal (403,
    /// 404, 405, and 501, the method not implemented) means this server cannot report what it stored.
    static func send(
        _ request: TransferRequest, file: String, via transport: any UploadTransport
    ) async -> Answer {
        let response: TransferResponse
        do {
            response = try await transport.send(request, probe: TransferProbe())
        } catch {
            return .verdict(.failed((error as? UploadError ?? UploadError(.cancelled)).forFile(file)))
        }
        guard response.isSuccess else {
            var error = response.error(file: file) ?? UploadError(.invalidResponse, file: file)
            if RetryPolicy.isRetryable(error), response.status != 501 {
                error.cause = "the read-back (\(request.method.rawValue))"
                return .verdict(.failed(error))
            }
            return .verdict(
                .unavailable("the read-back (\(request.method.rawValue)) got HTTP \(response.status)", file: file))
        }
        return .response(response)
    }

    /// A read-back's answer, or the verdict already reached without one.
    enum Answer {
        case response(TransferResponse)
        case verdict(Verification)
    }

    /// `item`'s MD5 compared with an MD5 ETag the server gave for it.
    static func compare(_ item: UploadItem, md5ETag etag: String) -> Verification {
        do throws(UploadError) {
            return .compare(kind: "md5", sent: try FileDigest.of(item).md5Hex, stored: etag, file: item.relativePath)
        } catch {
            return .failed(error)
        }
    }

    /// True for 32 lowercase or uppercase hex digits: a single-part MD5 ETag.
    static func isMD5(_ etag: String) -> Bool {
        etag.utf8.count == 32 && etag.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0 | 0x20) }
    }
}
