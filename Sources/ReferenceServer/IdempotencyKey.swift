import HTTPTypes

/// The value of a request's `Idempotency-Key` header (IETF httpapi draft "The Idempotency-Key HTTP
/// Header Field"): a structured-field string such as `"ut1-0123…"`, or the same text as a bare token.
///
/// The quoted and the bare form name the same key, so a client that switches between them still
/// finds its first attempt.
struct IdempotencyKey: Hashable, Sendable {
    /// Longest key accepted, in characters (all ASCII, so also bytes).
    static let maximumLength = 255

    /// The key without quotes or escapes.
    let value: String

    /// The header's name as `HTTPTypes` spells it.
    static let headerName = HTTPField.Name("Idempotency-Key")!

    /// Reads the key from a request's headers.
    /// - Returns: nil when the header is absent (the request is handled as it always was).
    /// - Throws: ``ReferenceServerError`` `invalidIdempotencyKey` (400) when the header is repeated,
    ///   empty, longer than ``maximumLength``, holds control or non-ASCII characters, or is a quoted
    ///   string that is not closed or escapes anything but `"` and `\`.
    init?(from headers: HTTPFields) throws {
        let values = headers[values: Self.headerName]
        guard let header = values.first else { return nil }
        guard values.count == 1 else {
            throw Self.invalid("Idempotency-Key must be sent once")
        }
        try self.init(parsing: header)
    }

    /// Parses one header value (surrounding spaces and tabs are not part of it).
    /// - Throws: as ``init(from:)``.
    init(parsing header: String) throws {
        let text = header.trimmingWhitespace()
        // Control characters (a tab inside the value) and non-ASCII are rejected in both forms: an
        // sf-string is printable ASCII only, and a key is compared byte for byte, so lookalikes must
        // not be allowed in.
        guard text.unicodeScalars.allSatisfy({ (0x20...0x7E).contains($0.value) }) else {
            throw Self.invalid("Idempotency-Key must be printable ASCII, without control characters")
        }
        let key = text.hasPrefix("\"") ? try Self.unquoted(text) : text
        guard !key.isEmpty else {
            throw Self.invalid("Idempotency-Key must not be empty")
        }
        guard key.utf8.count <= Self.maximumLength else {
            throw Self.invalid("Idempotency-Key must be at most \(Self.maximumLength) characters")
        }
        if !text.hasPrefix("\""), key.contains(where: { $0 == " " || $0 == "\"" }) {
            throw Self.invalid("Idempotency-Key must be a quoted string (\"ut1-…\") or a token without spaces")
        }
        value = key
    }

    /// The content of an RFC 8941 sf-string: `"` … `"` with `\"` and `\\` as the only escapes.
    private static func unquoted(_ text: String) throws -> String {
        var scalars = text.unicodeScalars.dropFirst()[...]
        var content = String.UnicodeScalarView()
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "\\":
                guard let escaped = scalars.popFirst(), escaped == "\"" || escaped == "\\" else {
                    throw invalid("Idempotency-Key is not a valid quoted string: only \\\" and \\\\ may be escaped")
                }
                content.append(escaped)
            case "\"":
                guard scalars.isEmpty else {
                    throw invalid("Idempotency-Key is not a valid quoted string: text after the closing quote")
                }
                return String(content)
            default:
                content.append(scalar)
            }
        }
        throw invalid("Idempotency-Key is not a valid quoted string: the closing quote is missing")
    }

    private static func invalid(_ message: String) -> ReferenceServerError {
        ReferenceServerError(.invalidIdempotencyKey, message)
    }
}
