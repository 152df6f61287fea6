import Foundation
import UploadDomain

/// One file's permission to upload (seed 000): where to PUT it, with which type, and the API's ID for it.
public struct PresignTicket: Sendable, Equatable {
    public let mediaID: String
    /// The presigned URL; its signature is a secret and is never printed.
    public let uploadURL: String
    public let contentType: String
    /// The storage key, when the API names one.
    public let key: String?

    /// Parses `{"data":{"items":[{"mediaID","uploadTicket","contentType"}]}}`, checking the count against the request.
    /// - Throws: `.presignMismatch` for a different count, `.decodingFailed` naming what is missing or malformed.
    static func parse(_ response: TransferResponse, expected: Int) throws(UploadError) -> [PresignTicket] {
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: Data(response.body.utf8))
        } catch {
            // The header is the server's text, printed as it is in the headless error line.
            let type = response.headers["content-type"].map { " (\(Sanitizer.displayName($0)))" } ?? ""
            throw UploadError(
                .decodingFailed, httpStatus: response.status,
                bodyExcerpt: Sanitizer.excerpt(response.shown(response.body), limit: 80),
                cause: "presign response is not JSON\(type)")
        }
        guard let data = (json as? [String: Any])?["data"] as? [String: Any],
            let items = data["items"] as? [[String: Any]]
        else {
            throw UploadError(
                .decodingFailed, httpStatus: response.status, cause: "presign response has no data.items list")
        }
        guard items.count == expected else {
            throw UploadError(
                .presignMismatch, httpStatus: response.status,
                cause: "asked for \(expected) upload tickets, got \(items.count)")
        }
        return try items.enumerated().map { (index, entry) throws(UploadError) in
            func field(_ name: String) throws(UploadError) -> String {
                guard let value = entry[name] as? String, !value.isEmpty else {
                    throw UploadError(
                        .decodingFailed, httpStatus: response.status,
                        cause: "presign item \(index + 1) has no \(name)")
                }
                return value
            }
            let url = try field("uploadTicket")
            guard let scheme = URLComponents(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https"
            else {
                throw UploadError(
                    .decodingFailed, cause: "presign item \(index + 1) has an uploadTicket that is not a URL")
            }
            let contentType = try field("contentType")
            guard HTTPHeader(name: "Content-Type", value: contentType) != nil else {
                throw UploadError(.decodingFailed, cause: "presign item \(index + 1) has an invalid contentType")
            }
            return PresignTicket(
                mediaID: try field("mediaID"), uploadURL: url, contentType: contentType, key: entry["key"] as? String)
        }
    }
}
