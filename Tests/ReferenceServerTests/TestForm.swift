import Foundation

/// A `multipart/form-data` body built by hand, so a test chooses its boundary: libcurl draws a new
/// one per request, and the same form must be recognised under any of them.
struct TestForm: Sendable {
    /// One part of the form.
    struct Part: Sendable {
        var name: String
        /// Nil for a plain field.
        var filename: String?
        var contentType: String?
        var content: [UInt8]
    }

    var parts: [Part]

    /// The body with `boundary` between the parts.
    func body(boundary: String) -> [UInt8] {
        var body: [UInt8] = []
        for part in parts {
            var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
            if let filename = part.filename { head += "; filename=\"\(filename)\"" }
            if let contentType = part.contentType { head += "\r\nContent-Type: \(contentType)" }
            body += Array((head + "\r\n\r\n").utf8) + part.content + Array("\r\n".utf8)
        }
        return body + Array("--\(boundary)--\r\n".utf8)
    }
}
