/// Removes secrets from URLs before they are shown or logged.
public enum Redactor {
    /// Parts of query parameter names whose values are secrets, compared without case, `-`, `_` or `.`: presigned
    /// signatures of every cloud (`X-Amz-Signature`, `X-Goog-Signature`, `sig`), tokens (`access_token`,
    /// `auth_token`), keys (`api-key`, `key`), credentials, passwords, client secrets, session IDs, OAuth codes.
    /// A name that holds one is redacted: showing a harmless value as REDACTED costs less than showing a secret.
    static let secretNameParts = [
        "sig", "token", "key", "secret", "pass", "pwd", "credential", "auth", "session", "sid", "jwt", "code",
    ]

    /// Whether a query parameter of this name carries a secret.
    static func isSecretParameter<S: StringProtocol>(_ name: S) -> Bool {
        let folded = name.lowercased().filter { $0 != "-" && $0 != "_" && $0 != "." }
        return secretNameParts.contains { folded.contains($0) }
    }

    /// The URL with user info and secret query values replaced by `REDACTED`.
    public static func url(_ url: String) -> String {
        // Most URLs have neither user info nor a query: one pass over the bytes, and the string comes back as is.
        guard url.utf8.contains(where: { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "?") }) else { return url }
        var text = url
        if let authorityStart = authorityStart(of: text) {
            let authorityEnd = text[authorityStart...].firstIndex(where: { "/?#".contains($0) }) ?? text.endIndex
            if let at = text[authorityStart..<authorityEnd].lastIndex(of: "@") {
                text.replaceSubrange(authorityStart...at, with: "REDACTED@")
            }
        }
        guard let question = text.firstIndex(of: "?") else { return text }
        let fragmentStart = text[question...].firstIndex(of: "#") ?? text.endIndex
        let query = text[text.index(after: question)..<fragmentStart]
        let redacted = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            return isSecretParameter(pair[..<eq]) ? pair[..<eq] + "=REDACTED" : String(pair)
        }.joined(separator: "&")
        return String(text[...question]) + redacted + String(text[fragmentStart...])
    }

    private static func authorityStart(of text: String) -> String.Index? {
        let chars = Array(text.utf8)
        guard chars.count >= 3 else { return nil }
        for i in 0..<(chars.count - 2) where chars[i] == UInt8(ascii: ":") {
            guard chars[i + 1] == UInt8(ascii: "/"), chars[i + 2] == UInt8(ascii: "/") else { return nil }
            return text.utf8.index(text.utf8.startIndex, offsetBy: i + 3)
        }
        return nil
    }

    /// True for header names whose values are credentials.
    public static func isSecretHeader(_ name: String) -> Bool {
        let lower = name.lowercased()
        // A digest of the request that names a retry, not a credential; the curl command must carry it to work.
        if lower == "idempotency-key" { return false }
        return lower == "authorization" || lower == "cookie" || lower == "proxy-authorization"
            || ["token", "secret", "key", "password", "session"].contains(where: lower.contains)
    }
}
