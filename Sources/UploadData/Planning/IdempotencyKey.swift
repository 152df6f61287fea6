import Crypto
import UploadDomain

/// The `Idempotency-Key` header (IETF httpapi draft) a request carries, so a server that saw it before answers
/// with its first result instead of storing the files again (issue 15: a Ctrl-C or kill -9 between the server's
/// store and its answer reaching us).
///
/// The value comes from the files' identity as the journal keeps it (absolute path, size, modification time) and
/// the request's URL: the same across retries, reruns and a resume, different for a changed file or another
/// destination. Nothing of the file's content is read for it: the content hash is made while the body is sent.
public enum IdempotencyKey {
    /// The header's name.
    public static let headerName = "Idempotency-Key"

    /// The key of a request sending `items` to `url`, as a structured-field string: `"ut1-<32 hex digits>"`.
    public static func value(url: String, items: [UploadItem]) -> String {
        var hash = SHA256()
        hash.update(data: Array("uploader-tui/1\n\(url)\n".utf8))
        for item in items {
            hash.update(data: Array("\(item.path)\0\(item.size)\0\(item.modified.bitPattern)\n".utf8))
        }
        return "\"ut1-\(URIEncoding.hex(hash.finalize().prefix(16)))\""
    }

    /// `headers` with the key added, unless the user set one of their own with `-H`.
    static func adding(to headers: [HTTPHeader], url: String, items: [UploadItem]) -> [HTTPHeader] {
        guard !headers.contains(where: { $0.name.lowercased() == "idempotency-key" }),
            let header = HTTPHeader(name: headerName, value: value(url: url, items: items))
        else { return headers }
        return headers + [header]
    }
}
