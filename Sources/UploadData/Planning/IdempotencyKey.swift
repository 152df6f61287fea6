import Crypto
import Foundation
import UploadDomain

/// The `Idempotency-Key` header (IETF httpapi draft) a request carries, so a server that saw it before answers
/// with its first result instead of storing the files again (issue 15: a Ctrl-C or kill -9 between the server's
/// store and its answer reaching us).
///
/// The value comes from the files' identity as the journal keeps it (absolute path, size, modification time; for a
/// prepared image, its original's and the preparation's options), the request's URL and, for a form, its fields and
/// file field: the same across retries, reruns and a resume, different for a changed file, another destination or
/// another form (a server refuses a key it saw with another body: 422 until the key expires), and new once `--verify`
/// found the stored copy wrong (`UploadItem.keyRenewal`). Nothing of the file's content is read for it: the content
/// hash is made while the body is sent.
public enum IdempotencyKey {
    /// The header's name.
    public static let headerName = "Idempotency-Key"

    /// The key of a request sending `items` to `url`, as a structured-field string: `"ut1-<32 hex digits>"`.
    /// - Parameter form: what else makes up the body (`formIdentity`), empty for a body that is the file alone.
    public static func value(url: String, items: [UploadItem], form: String = "") -> String {
        // One buffer and one digest call: hashing a string per file built an array and a digest update each.
        var text: [UInt8] = []
        text.reserveCapacity(32 + url.utf8.count + items.reduce(0) { $0 + $1.path.utf8.count + 48 })
        text += "uploader-tui/1\n".utf8
        text += url.utf8
        text.append(UInt8(ascii: "\n"))
        for item in items {
            // A prepared copy's path and time are new on every preparation: the original's, and how it was made.
            let origin = item.preparedFrom
            text += (origin?.path ?? item.path).utf8
            text.append(0)
            text += String(origin?.size ?? item.size).utf8
            text.append(0)
            text += String((origin?.modified ?? item.modified).bitPattern).utf8
            if let origin {
                text.append(0)
                text += origin.preparation.utf8
            }
            // The name it is sent under, which a form's server stores it by: only when it is more than the file's
            // own name (a file in a subfolder), so the keys of a folder's files are those of earlier versions.
            let name = origin == nil ? item.relativePath : nil
            if let name, !name.utf8.elementsEqual(lastComponent(of: item.path)) {
                text += "\0name\0".utf8
                text += name.utf8
            }
            // A stored copy found wrong: the old key's answer is that copy. Absent until then: keys stay as they were.
            if item.keyRenewal > 0 {
                text += "\0renewal\0".utf8
                text += String(item.keyRenewal).utf8
            }
            text.append(UInt8(ascii: "\n"))
        }
        text += form.utf8
        // The digest's bytes read in place: a generic walk over its `prefix(16)` cost more than the hash.
        let digest = SHA256.hash(data: text).withUnsafeBytes {
            URIEncoding.hex(UnsafeRawBufferPointer(rebasing: $0[..<16]))
        }
        return "\"ut1-" + digest + "\""
    }

    /// The bytes after the path's last slash, compared as bytes: every request computes its key, and bridging to
    /// `NSString` for its `lastPathComponent` would be the dearest part of it.
    private static func lastComponent(of path: String) -> Substring.UTF8View {
        let utf8 = path.utf8
        return path[...].utf8[(utf8.lastIndex(of: UInt8(ascii: "/")).map(utf8.index(after:)) ?? utf8.startIndex)...]
    }

    /// The part of a form's key that is not its files: the file field and the other fields, in order. Empty for
    /// the default form (`file`, no fields), so keys of requests made before fields counted are unchanged.
    static func formIdentity(fileField: String, fields: [FormField]) -> String {
        guard fileField != "file" || !fields.isEmpty else { return "" }
        return fields.reduce("form\0\(fileField)") { $0 + "\0\($1.name)=\($1.value)" } + "\n"
    }

    /// `headers` with the key added, unless the user set one of their own with `-H`.
    static func adding(to headers: [HTTPHeader], url: String, items: [UploadItem], form: String = "") -> [HTTPHeader] {
        guard !headers.contains(where: { $0.name.lowercased() == "idempotency-key" }),
            let header = HTTPHeader(name: headerName, value: value(url: url, items: items, form: form))
        else { return headers }
        return headers + [header]
    }
}
