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
        // CompleteMultipartUpload can fail with 200.
        let embedded = response.isSuccess && response.body.contains("<Error>")
        guard !response.isSuccess || embedded else { return nil }
        let status = embedded ? 500 : response.status
        var error = UploadError(
            UploadError.code(forStatus: status), file: file, httpStatus: response.status,
            retryAfter: response.retryAfter)
        if let code = value(of: "Code", in: response.body) {
            error.bodyExcerpt = Sanitizer.excerpt(
                response.shown(code + (value(of: "Message", in: response.body).map { ": " + $0 } ?? "")))
        } else {
            error.bodyExcerpt = Sanitizer.excerpt(response.shown(response.body))
        }
        // S3 names the bucket's region when the request went to another (a 301, or a 400 on the signature's).
        if let region = response.headers["x-amz-bucket-region"], !region.isEmpty {
            let hint = "the bucket is in \(Sanitizer.excerpt(region)): pass --region \(Sanitizer.excerpt(region))"
            error.bodyExcerpt = (error.bodyExcerpt.map { $0 + " — " } ?? "") + hint
        }
        error.cause = step
        return error
    }

    /// The CompleteMultipartUpload body: each part's number, ETag and, when it was sent with one, its checksum by
    /// the upload's `algorithm`.
    static func completion(_ parts: [(number: Int, part: FinishedPart)], algorithm: S3ChecksumAlgorithm) -> String {
        let body = parts.map { number, part in
            let checksum =
                if let value = part.checksum {
                    "<\(algorithm.completionElement)>\(escape(value))</\(algorithm.completionElement)>"
                } else { "" }
            return "<Part><PartNumber>\(number)</PartNumber><ETag>\(escape(part.etag))</ETag>\(checksum)</Part>"
        }
        return "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">" + body.joined()
            + "</CompleteMultipartUpload>"
    }

    // Both work on Unicode scalars: `replacingOccurrences` compares characters, and a combining mark after `<` or
    // `;` makes one character of the two, so `<\u{301}` stayed markup and `&amp;\u{301}` stayed encoded.
    static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out.append(contentsOf: "&amp;".unicodeScalars)
            case "<": out.append(contentsOf: "&lt;".unicodeScalars)
            case ">": out.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    private static let entities: [String: Unicode.Scalar] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'",
    ]

    static func unescape(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            // The longest entity name has four letters: the `;` comes within five scalars of the `&`.
            if scalars[index] == "&",
                let end = scalars[(index + 1)..<min(index + 6, scalars.count)].firstIndex(of: ";"),
                let decoded = entities[String(String.UnicodeScalarView(scalars[(index + 1)..<end]))]
            {
                out.append(decoded)
                index = end + 1
            } else {
                out.append(scalars[index])
                index += 1
            }
        }
        return String(out)
    }
}
