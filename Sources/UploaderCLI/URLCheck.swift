/// Checks an upload URL whole before anything is sent: scheme, host, port range, and characters that must be
/// percent-encoded (issue 15: `http://127.0.0.1:99999/x` and `http://host/a b` used to fail per file at run time).
///
/// By hand, after RFC 3986: Foundation's `URLComponents` accepts both of those.
public enum URLCheck {
    /// Why `url` cannot be used, in a few words, or nil when it can.
    public static func problem(_ url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return "expected http:// or https://" }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "http" || scheme == "https" else { return "expected http:// or https://, not \(scheme)://" }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        if let problem = hostAndPortProblem(authority) { return problem }
        return characterProblem(rest[authorityEnd...], offset: url.count - rest[authorityEnd...].count)
    }

    private static func hostAndPortProblem(_ authority: Substring) -> String? {
        var host = authority
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return "unclosed [ in the host" }
            host = authority[authority.index(after: authority.startIndex)..<close]
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                return "invalid IPv6 address [\(host)]"
            }
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return "unexpected text after ]" }
                port = after.dropFirst()
            }
        } else {
            if let colon = authority.lastIndex(of: ":") {
                host = authority[..<colon]
                port = authority[authority.index(after: colon)...]
            }
            guard !host.isEmpty else { return "no host" }
            let allowed = { (c: Character) in c.isASCII && (c.isLetter || c.isNumber || c == "-" || c == "." || c == "_") }
            if let bad = host.first(where: { !allowed($0) }) { return "\(describe(bad)) is not allowed in a host name" }
        }
        guard let port else { return nil }
        guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port),
            (1...65535).contains(number)
        else { return "port \(port.isEmpty ? "(empty)" : String(port)) is not in 1-65535" }
        return nil
    }

    /// The first character of a path, query or fragment that must be percent-encoded, or a broken `%` escape.
    private static func characterProblem(_ text: Substring, offset: Int) -> String? {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%")
        let characters = Array(text)
        var index = 0
        while index < characters.count {
            let c = characters[index]
            guard allowed.contains(c) else {
                let hint = c.isASCII ? " (write \(percentEncoded(c)))" : " (percent-encode it as UTF-8)"
                return "\(describe(c)) at position \(offset + index + 1) must be percent-encoded\(hint)"
            }
            if c == "%" {
                guard index + 2 < characters.count, characters[index + 1].isHexDigit, characters[index + 2].isHexDigit
                else { return "% at position \(offset + index + 1) is not followed by two hex digits" }
                index += 2
            }
            index += 1
        }
        return nil
    }

    private static func describe(_ c: Character) -> String {
        switch c {
        case " ": "a space"
        case _ where c.isASCII && (c.asciiValue! < 0x20 || c.asciiValue! == 0x7F): "a control character"
        case _ where c.isASCII: "'\(c)'"
        default: "a non-ASCII character"
        }
    }

    private static func percentEncoded(_ c: Character) -> String {
        let value = c.asciiValue ?? 0
        let digits = Array("0123456789ABCDEF")
        return "%" + String(digits[Int(value >> 4)]) + String(digits[Int(value & 0xF)])
    }
}
