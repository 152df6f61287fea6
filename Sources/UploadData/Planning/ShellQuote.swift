import Foundation
import UploadDomain

/// Quotes text for a POSIX shell command line.
enum ShellQuote {
    static func quote(_ text: String) -> String {
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_./:=@,+%".contains($0)) }) {
            return text
        }
        return "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `--globoff` when a path or URL of the command holds `[`, `]`, `{` or `}`: curl reads them in `-T` and in URLs
    /// as globs (`photo[1].jpg` is "bad range"), where the request sent them as they are.
    static func globoff(_ words: String...) -> [String] {
        words.contains { $0.utf8.contains { "[]{}".utf8.contains($0) } } ? ["--globoff"] : []
    }

    /// `text` as one word of curl's `-F` syntax: in double quotes, `"` and `\` escaped by a backslash, so a `;` or
    /// `,` in a path or name is not read as the start of `;type=` or of another file.
    static func formWord(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The `-H` arguments that make curl send the headers `CurlTransfer` sends: the user's (a secret's value replaced
    /// by a placeholder) in place of ours of the same name, so a user's `Authorization` leaves out the bearer token,
    /// and ours — the token from `$UPLOADER_TOKEN`, `contentType` for a body that is not a form, an empty `Expect:`.
    /// - Parameters:
    ///   - multipart: The body is a form, whose `Content-Type` (naming its boundary) curl's `-F` sets.
    static func headerArguments(
        _ headers: [HTTPHeader], hasToken: Bool, contentType: String? = nil, multipart: Bool = false
    ) -> [String] {
        let bearer = "Authorization: Bearer $UPLOADER_TOKEN"
        var own = hasToken ? [bearer] : []
        if let contentType { own.append("Content-Type: \(contentType)") }
        own.append("Expect:")
        let shown = headers.map { header in
            Redactor.isSecretName(header.name) ? HTTPHeader(name: header.name, value: "REDACTED") ?? header : header
        }
        // The same merge as the request's, so the command cannot drift from what was sent.
        return CurlTransfer.merged(own: own, user: shown, multipart: multipart).map { line in
            "-H " + (line == bearer ? "\"\(line)\"" : quote(line))
        }
    }
}
