/// Removes secrets from URLs before they are shown or logged.
public enum Redactor {
    /// Parts of names whose values are secrets, in query parameters, `-F` fields and headers alike, compared without
    /// case, `-`, `_` or `.`: presigned signatures of every cloud (`X-Amz-Signature`, `X-Goog-Signature`, `sig`),
    /// tokens (`access_token`, `X-Auth-Token`), keys (`api-key`, `key`), credentials, passwords, client secrets,
    /// session IDs, cookies, OAuth codes, `Authorization` and its variants (`X-Authorization`, `X-Jwt-Assertion`).
    /// A name that holds one is redacted: showing a harmless value as REDACTED costs less than showing a secret.
    static let secretNameParts = [
        "sig", "token", "key", "secret", "pass", "pwd", "credential", "auth", "session", "sid", "jwt", "code", "cookie",
    ].map { Array($0.utf8) }

    /// Names the parts catch by accident, whose values the curl command needs and which are no credentials: a
    /// digest that names a retry, and S3's encryption choice (`side` holds `sid`). The encryption headers that
    /// follow the prefix are judged by what follows: `-customer-key` is a secret, `-customer-algorithm` is not.
    static let harmlessNames = ["idempotency-key"]
    static let harmlessPrefixes = ["x-amz-server-side-encryption"]

    /// Whether a header, query parameter or form field of this name carries a secret: one rule for the three, so a
    /// value hidden in a query is hidden in a header too. On bytes, as every request's headers are judged.
    public static func isSecretName<S: StringProtocol>(_ name: S) -> Bool {
        var folded: [UInt8] = []
        folded.reserveCapacity(name.utf8.count)
        for byte in name.utf8 {
            folded.append((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte)
        }
        if harmlessNames.contains(where: { folded.elementsEqual($0.utf8) }) { return false }
        var rest = folded[...]
        if let prefix = harmlessPrefixes.first(where: { folded.starts(with: $0.utf8) }) {
            rest = rest.dropFirst(prefix.utf8.count)
        }
        let letters = rest.filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "_") && $0 != UInt8(ascii: ".") }
        return secretNameParts.contains { part in
            letters.count >= part.count
                && (0...(letters.count - part.count)).contains { letters[$0..<($0 + part.count)].elementsEqual(part) }
        }
    }

    /// The URL with user info and secret query values replaced by `REDACTED`.
    public static func url(_ url: String) -> String {
        guard mayHoldSecrets(url) else { return url }
        var text = url
        // Found as `userInfo(of:)` and `secrets(in:)` find it: what one redacts, the other names.
        if let (start, at) = userInfoRange(of: text) { text.replaceSubrange(start...at, with: "REDACTED@") }
        guard let question = text.utf8.firstIndex(of: UInt8(ascii: "?")) else { return text }
        let fragmentStart = text[question...].firstIndex(of: "#") ?? text.endIndex
        let query = text[text.index(after: question)..<fragmentStart]
        let redacted = query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let eq = pair.firstIndex(of: "=") else { return String(pair) }
            return isSecretName(pair[..<eq]) ? pair[..<eq] + "=REDACTED" : String(pair)
        }.joined(separator: "&")
        return String(text[...question]) + redacted + String(text[fragmentStart...])
    }

    /// The secrets `url` holds, as they appear in it and percent-decoded: its user info's password and the values
    /// of its secret query parameters (what `url(_:)` redacts).
    public static func secrets(in url: String) -> [String] {
        guard mayHoldSecrets(url) else { return [] }
        var found: [String] = []
        if let userInfo = userInfo(of: url) {
            // libcurl sends it as `Authorization: Basic base64(user:password)`, which a server may repeat.
            found.append(base64(Array(percentDecoded(userInfo, plusIsSpace: false).utf8)))
            let password =
                userInfo.firstIndex(of: ":").map { String(userInfo[userInfo.index(after: $0)...]) } ?? userInfo
            found += [password, percentDecoded(password, plusIsSpace: false)]
        }
        // Scanned as bytes: a URL's delimiters are ASCII, and every request's response is checked.
        if let question = url.utf8.firstIndex(of: UInt8(ascii: "?")) {
            let query = url[url.index(after: question)...].prefix { $0 != "#" }
            for pair in query.split(separator: "&") {
                guard let eq = pair.firstIndex(of: "="), isSecretName(pair[..<eq]) else { continue }
                let value = String(pair[pair.index(after: eq)...])
                found += [value, percentDecoded(value)]
            }
        }
        return found
    }

    /// The user info of `url` (`user:password` of `http://user:password@host/`) as written, if it has one.
    public static func userInfo(of url: String) -> String? {
        userInfoRange(of: url).map { String(url[$0.start..<$0.at]) }
    }

    /// Where the user info begins, and its `@`, scanned as bytes: a URL's delimiters are ASCII.
    private static func userInfoRange(of url: String) -> (start: String.Index, at: String.Index)? {
        guard let start = authorityStart(of: url) else { return nil }
        let utf8 = url.utf8
        let end =
            utf8[start...].firstIndex {
                $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
            } ?? utf8.endIndex
        return utf8[start..<end].lastIndex(of: UInt8(ascii: "@")).map { (start, $0) }
    }

    /// Standard base64 with padding.
    static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                out.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `%XX` escapes (and `+`, as forms write a space, unless `plusIsSpace` is false: in user info it is a `+`)
    /// decoded; anything malformed kept as it is.
    public static func percentDecoded(_ text: String, plusIsSpace: Bool = true) -> String {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%"), utf8.count >= 2,
                let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Most URLs have neither user info nor a query: one pass over the bytes tells, for every request.
    private static func mayHoldSecrets(_ url: String) -> Bool {
        url.utf8.contains { $0 == UInt8(ascii: "@") || $0 == UInt8(ascii: "?") }
    }

    /// Where the authority begins: after the first `:`, when `//` follows it.
    private static func authorityStart(of text: String) -> String.Index? {
        let utf8 = text.utf8
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let rest = utf8[utf8.index(after: colon)...]
        guard rest.starts(with: "//".utf8) else { return nil }
        return utf8.index(colon, offsetBy: 3)
    }
}
