/// Building the canonical request: URI, query string, headers.
extension SigV4Signer {
    /// A canonical request and the signed-headers list that goes into `Authorization`.
    struct CanonicalParts {
        var text: String
        var signedHeaders: String
    }

    func canonicalParts(method: String, url: RequestURL, headers: [(String, String)], payloadHash: String)
        -> CanonicalParts
    {
        var values: [String: [String]] = [:]
        for (name, value) in headers {
            values[Self.headerName(name), default: []].append(Self.headerValue(value))
        }
        if values["host"] == nil { values["host"] = [url.hostHeader] }
        let names = values.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let canonicalHeaders = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let text = [
            method.uppercased(),
            canonicalURI(url.path),
            Self.canonicalQueryString(url.queryItems),
            canonicalHeaders,
            signedHeaders,
            payloadHash,
        ].joined(separator: "\n")
        return CanonicalParts(text: text, signedHeaders: signedHeaders)
    }

    /// The canonical URI under this signer's rules.
    func canonicalURI(_ path: String) -> String {
        Self.canonicalURI(path, s3Rules: usesS3Rules)
    }

    /// The canonical URI of a path as sent.
    ///
    /// S3: each segment is decoded then encoded once, so an already-encoded key is not encoded twice and
    /// `a//b/./c` is kept as is. Other services: empty, `.` and `..` segments are resolved, then each
    /// segment is encoded as sent, which encodes an already-encoded path a second time (`%` → `%25`).
    static func canonicalURI(_ path: String, s3Rules: Bool) -> String {
        guard !path.isEmpty else { return "/" }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        if s3Rules {
            return segments.map { URIEncoding.encode(URIEncoding.decode($0)) }.joined(separator: "/")
        }
        var kept: [Substring] = []
        for segment in segments {
            switch segment {
            case "", ".": continue
            case "..": _ = kept.popLast()
            default: kept.append(segment)
            }
        }
        var result = "/" + kept.map { URIEncoding.encode($0) }.joined(separator: "/")
        let last = segments.last ?? ""
        let endsInDirectory = last.isEmpty || last == "." || last == ".."
        if endsInDirectory && !kept.isEmpty { result += "/" }
        return result
    }

    /// Items encoded, sorted by encoded name then encoded value, joined as `name=value&…` (`=` kept for
    /// empty values).
    static func canonicalQueryString(_ items: [(name: [UInt8], value: [UInt8])]) -> String {
        items
            .map { (name: Array(URIEncoding.encode($0.name).utf8), value: Array(URIEncoding.encode($0.value).utf8)) }
            .sorted { lhs, rhs in
                lhs.name == rhs.name
                    ? lhs.value.lexicographicallyPrecedes(rhs.value) : lhs.name.lexicographicallyPrecedes(rhs.name)
            }
            .map { String(decoding: $0.name + [UInt8(ascii: "=")] + $0.value, as: UTF8.self) }
            .joined(separator: "&")
    }

    /// Lower-cased, trimmed header name.
    static func headerName(_ name: String) -> String {
        String(name.lowercased().trimmingSpaces())
    }

    /// Trimmed header value with each inner run of spaces or tabs collapsed to one space.
    static func headerValue(_ value: String) -> String {
        var out = ""
        var pendingSpace = false
        for character in value.trimmingSpaces() {
            if character == " " || character == "\t" {
                pendingSpace = true
                continue
            }
            if pendingSpace { out.append(" ") }
            pendingSpace = false
            out.append(character)
        }
        return out
    }
}

extension StringProtocol {
    /// Drops leading and trailing spaces and tabs (the only whitespace an HTTP field value may be padded with).
    fileprivate func trimmingSpaces() -> SubSequence {
        let isPadding: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isPadding($0) }), let last = lastIndex(where: { !isPadding($0) })
        else { return self[endIndex...] }
        return self[first...last]
    }
}
