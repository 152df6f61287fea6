import Foundation
import UploadDomain

/// The few S3 XML bits the client reads and writes; a full XML parser would be more than these need.
enum S3XML {
    /// The text of the first `<tag>…</tag>`, entities decoded.
    static func value(of tag: String, in xml: String) -> String? {
        guard let open = xml.range(of: "<\(tag)>"),
            let close = xml.range(of: "</\(tag)>", range: open.upperBound..<xml.endIndex)
        else { return nil }
        return unescape(String(xml[open.upperBound..<close.lowerBound]))
    }

    /// The error an S3 response means, with S3's own code and message as the excerpt.
    static func error(_ response: TransferResponse, file: String?, during step: String? = nil) -> UploadError? {
        let embedded = response.isSuccess && response.body.contains("<Error>")  // CompleteMultipartUpload can fail with 200
        guard !response.isSuccess || embedded else { return nil }
        let status = embedded ? 500 : response.status
        var error = UploadError(
            UploadError.code(forStatus: status), file: file, httpStatus: response.status,
            retryAfter: response.retryAfter)
        if let code = value(of: "Code", in: response.body) {
            error.bodyExcerpt = Sanitizer.excerpt(
                code + (value(of: "Message", in: response.body).map { ": " + $0 } ?? ""))
        } else {
            error.bodyExcerpt = Sanitizer.excerpt(response.body)
        }
        error.cause = step
        return error
    }

    static func completion(_ parts: [(number: Int, etag: String)]) -> String {
        let body = parts.map { "<Part><PartNumber>\($0.number)</PartNumber><ETag>\(escape($0.etag))</ETag></Part>" }
        return "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">" + body.joined()
            + "</CompleteMultipartUpload>"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&lt;", with: "<")
            .replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
