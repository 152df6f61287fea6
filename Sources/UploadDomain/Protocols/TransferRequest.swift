/// One HTTP request the transport should send: method, URL, headers and a body that streams from disk.
public struct TransferRequest: Sendable {
    /// What the request body is made of.
    public enum Body: Sendable {
        /// `multipart/form-data`: extra text fields first, then one part per file in `fileField`.
        case multipart(fields: [FormField], fileField: String, files: [UploadItem])
        /// The raw bytes of one file, with its content type.
        case file(UploadItem, contentType: String)
        /// `length` bytes of a file from `offset` (an S3 part); no Content-Type header when nil.
        case fileRange(UploadItem, offset: Int64, length: Int64, contentType: String?)
        /// A small in-memory body, such as a JSON request to an API.
        case bytes([UInt8], contentType: String)
        /// No body: a `GET` or `HEAD` that reads back a stored file (`--verify`).
        case none
    }

    public enum Method: String, Sendable {
        case post = "POST"
        case put = "PUT"
        case delete = "DELETE"
        case get = "GET"
        case head = "HEAD"
    }

    public var method: Method
    public var url: String
    /// Extra headers; values may be secret and are never printed.
    public var headers: [HTTPHeader]
    /// Sent as `Authorization: Bearer …`; kept apart so it can be redacted everywhere.
    public var bearerToken: String?
    public var body: Body
    /// Hash the response body as it streams (MD5 and SHA-256, see `TransferResponse.bodyDigest`) instead of
    /// keeping it: a read-back of a stored file of any size in flat memory.
    public var digestsResponseBody = false

    /// Creates a request.
    public init(method: Method, url: String, headers: [HTTPHeader], bearerToken: String?, body: Body) {
        self.method = method
        self.url = url
        self.headers = headers
        self.bearerToken = bearerToken
        self.body = body
    }

    /// The credentials the request carries, each at least 4 characters (a shorter one would redact too much of
    /// an answer): its bearer token, its secret headers' values (and a scheme's credential alone), its secret form
    /// fields' values, its URL's.
    public var credentials: [String] {
        var found = bearerToken.map { [$0] } ?? []
        for header in headers where Redactor.isSecretName(header.name) {
            found.append(header.value)
            if let space = header.value.firstIndex(of: " ") {
                found.append(String(header.value[header.value.index(after: space)...]).trimmingSpaces)
            }
        }
        if case .multipart(let fields, _, _) = body {
            found += fields.filter { Redactor.isSecretName($0.name) }.map(\.value)
        }
        found += Redactor.secrets(in: url)
        return found.filter { $0.count >= 4 }
    }

    /// The files the request carries, in order.
    public var files: [UploadItem] {
        switch body {
        case .multipart(_, _, let files): files
        case .file(let item, _), .fileRange(let item, _, _, _): [item]
        case .bytes, .none: []
        }
    }
}

/// A header line. Construction rejects CR, LF and NUL so no header can be injected.
public struct HTTPHeader: Sendable, Equatable {
    public let name: String
    public let value: String

    /// Parses `Name: value`; returns nil when the name is empty or not a token, or either side holds CR/LF/NUL.
    public init?(line: String) {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = String(line[..<colon]).trimmingSpaces
        let value = String(line[line.index(after: colon)...]).trimmingSpaces
        self.init(name: name, value: value)
    }

    /// Creates a header; returns nil when either side would break the request framing, or the value holds a control
    /// character RFC 9110 does not allow there (every one but the tab).
    ///
    /// Checked on UTF-8 bytes: every request builds headers, and control characters are single bytes in UTF-8.
    public init?(name: String, value: String) {
        guard !name.isEmpty, name.utf8.allSatisfy(Self.isTokenByte),
            !value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F })
        else { return nil }
        self.name = name
        self.value = value
    }

    /// Whether two header names are the same, ASCII letters compared without case; on bytes, as every request
    /// merges its headers.
    public static func sameName(_ a: Substring, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8) { folded($0) == folded($1) }
    }

    private static func folded(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    /// RFC 9110's `tchar`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

/// A text field of a multipart form (`-F name=value`).
public struct FormField: Sendable, Equatable {
    public let name: String
    public let value: String

    /// Creates a field.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
