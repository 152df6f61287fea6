import UploadDomain

@testable import UploadData

/// `S3XML` on a fuzzed S3 answer.
///
/// Input: one byte choosing the HTTP status, then the body. `error` must say nothing of a 2xx answer without an
/// `<Error>` element and must describe every other failure in a line safe for a terminal; `value` must find what
/// lies between the tags; `escape` must leave no markup and `unescape` must undo it.
enum S3XMLFuzzer {
    static let statuses = [200, 200, 204, 301, 400, 403, 404, 409, 500, 503]
    static let tags = ["Code", "Message", "UploadId", "ETag"]

    static func run(_ input: [UInt8]) {
        var reader = FuzzInput(input)
        let status = statuses[Int(reader.byte()) % statuses.count]
        let body = reader.rest().text
        let response = TransferResponse(status: status, body: body)

        let error = S3XML.error(response, file: "photos/a.jpg", during: "uploading part 1")
        if (200..<300).contains(status) && !body.contains("<Error>") {
            require(error == nil, "an error for a \(status) answer without <Error>")
        } else {
            require(error != nil, "no error for \(status)")
        }
        if let error {
            TerminalSafety.require(error.description, "S3 error")
            require(error.bodyExcerpt.map { $0.count <= 201 } ?? true, "excerpt longer than 200 characters")
        }

        for tag in tags {
            guard let value = S3XML.value(of: tag, in: body) else { continue }
            require(body.contains("<\(tag)>") && body.contains("</\(tag)>"), "\(tag) found without its tags")
            checkEscaping(value)
        }
        checkEscaping(body)
    }

    /// What the client writes into `CompleteMultipartUpload` (ETags) must stay text and read back the same.
    static func checkEscaping(_ text: String) {
        let escaped = S3XML.escape(text)
        require(
            !escaped.unicodeScalars.contains { $0 == "<" || $0 == ">" || $0 == "\"" },
            "markup left in \(escaped.debugDescription)")
        require(S3XML.unescape(escaped) == text, "unescape(escape(\(text.debugDescription))) differs")
    }
}
