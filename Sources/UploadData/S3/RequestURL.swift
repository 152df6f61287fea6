/// The parts of an absolute `http(s)://` URL that signing needs.
///
/// Split by hand rather than with Foundation's `URL`, which rejects or rewrites spaces, raw UTF-8 and `//`:
/// the signature must cover the path exactly as it goes on the wire.
struct RequestURL: Sendable, Equatable {
    /// Lower-cased scheme, `https` when the text has none.
    var scheme: String
    /// `host[:port]`, without any `user:password@`.
    var authority: String
    /// Empty or starting with `/`.
    var path: String
    /// The text after `?` (without it), up to any `#`; nil when there is no `?`.
    var query: String?

    init(_ text: String) {
        var rest = Substring(text)
        if let range = rest.range(of: "://") {
            scheme = rest[..<range.lowerBound].lowercased()
            rest = rest[range.upperBound...]
        } else {
            scheme = "https"
        }
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        self.authority = String(authority)
        rest = rest[authorityEnd...]
        if let mark = rest.firstIndex(of: "?") {
            path = String(rest[..<mark])
            query = String(rest[rest.index(after: mark)...])
        } else {
            path = String(rest)
            query = nil
        }
    }

    /// The `Host` header value: the authority without a port that is the scheme's default.
    var hostHeader: String {
        guard let colon = authority.lastIndex(of: ":"), !authority[colon...].contains("]") else { return authority }
        let port = authority[authority.index(after: colon)...]
        if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
            return String(authority[..<colon])
        }
        return authority
    }

    /// Query items split on `&` and the first `=`, percent-decoded to bytes; empty items are dropped.
    var queryItems: [(name: [UInt8], value: [UInt8])] {
        guard let query else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { item in
            if let equals = item.firstIndex(of: "=") {
                return (URIEncoding.decode(item[..<equals]), URIEncoding.decode(item[item.index(after: equals)...]))
            }
            return (URIEncoding.decode(item), [])
        }
    }
}
