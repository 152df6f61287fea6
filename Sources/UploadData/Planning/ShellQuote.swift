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

    /// `text` as one word of curl's `-F` syntax: in double quotes, `"` and `\` escaped by a backslash, so a `;` or
    /// `,` in a path or name is not read as the start of `;type=` or of another file.
    static func formWord(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// The `-H` arguments of a request, secrets replaced by environment variables or a placeholder.
    static func headerArguments(_ headers: [HTTPHeader], hasToken: Bool) -> [String] {
        var args = headers.map { header in
            Redactor.isSecretHeader(header.name)
                ? "-H " + quote("\(header.name): REDACTED") : "-H " + quote("\(header.name): \(header.value)")
        }
        if hasToken { args.append("-H \"Authorization: Bearer $UPLOADER_TOKEN\"") }
        args.append("-H 'Expect:'")
        return args
    }
}
