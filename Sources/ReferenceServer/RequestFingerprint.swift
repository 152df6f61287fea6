import Crypto
import Hummingbird
import NIOCore

/// What makes a repeated request "the same request" under one `Idempotency-Key`: SHA-256 over the
/// method, the path and the content.
///
/// The content is the body's SHA-256 for a raw `PUT`, and for a multipart form the digest of its
/// parts (``Parts``), never the raw body: libcurl draws a new boundary for every attempt, so two
/// attempts of the same form differ byte for byte. Both are computed while the body streams past,
/// so memory stays bounded by the chunk size.
struct RequestFingerprint: Hashable, Sendable {
    /// Lowercase hex SHA-256.
    let hex: String

    /// The fingerprint of a raw-body request.
    /// - Parameters:
    ///   - method: the request method, e.g. `PUT`.
    ///   - path: the request path as sent (percent-encoded, no query).
    ///   - bodySHA256: lowercase hex SHA-256 of the body.
    init(method: String, path: String, bodySHA256: String) {
        self.init(method: method, path: path, kind: "raw", content: bodySHA256)
    }

    /// The fingerprint of a multipart request whose parts were fed to `parts` in order.
    init(method: String, path: String, parts: Parts) {
        self.init(method: method, path: path, kind: "multipart", content: parts.finalize())
    }

    /// The fingerprint of `request`, a raw-body request, from the SHA-256 of its body.
    init(_ request: Request, bodySHA256: String) {
        self.init(method: request.method.rawValue, path: request.uri.path, bodySHA256: bodySHA256)
    }

    /// The fingerprint of `request`, a multipart request, from its parts.
    init(_ request: Request, parts: Parts) {
        self.init(method: request.method.rawValue, path: request.uri.path, parts: parts)
    }

    private init(method: String, path: String, kind: String, content: String) {
        var hasher = SHA256()
        for item in [method, path, kind, content] { hasher.updateLengthPrefixed(item) }
        hex = hasher.finalize().hexString
    }

    /// The parts of a multipart body in order: for a file its field name, filename, content type
    /// and content SHA-256; for a plain field its name and value.
    struct Parts {
        private var hasher = SHA256()

        /// An empty sequence of parts.
        init() {}

        /// Appends a file part.
        mutating func addFile(name: String, filename: String, contentType: String, contentSHA256: String) {
            hasher.updateLengthPrefixed("file")
            for item in [name, filename, contentType, contentSHA256] { hasher.updateLengthPrefixed(item) }
        }

        /// Appends a non-file field (its value is at most ``MultipartReceiver/maximumFieldBytes``).
        mutating func addField(name: String, value: ByteBuffer) {
            hasher.updateLengthPrefixed("field")
            hasher.updateLengthPrefixed(name)
            hasher.update(count: value.readableBytes)
            value.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
        }

        /// Lowercase hex digest of everything appended.
        func finalize() -> String {
            hasher.finalize().hexString
        }
    }
}

extension SHA256 {
    /// Hashes `text` behind its length, so consecutive items cannot run into each other
    /// (`"ab" + "c"` must differ from `"a" + "bc"`).
    fileprivate mutating func updateLengthPrefixed(_ text: String) {
        let bytes = Array(text.utf8)
        update(count: bytes.count)
        update(data: bytes)
    }

    /// Hashes a length as 8 big-endian bytes.
    fileprivate mutating func update(count: Int) {
        withUnsafeBytes(of: UInt64(count).bigEndian) { update(bufferPointer: $0) }
    }
}
