/// Redacts known secrets from text a server, a proxy or a token command wrote: as they are, and as a JSON encoder
/// may have escaped them (PHP writes `/` as `\/`, .NET `+` as `\u002B`).
extension Redactor {
    /// `text` with each of `secrets` replaced by `REDACTED`, written plainly or JSON-escaped.
    public static func redacting(_ secrets: [String], in text: String) -> String {
        guard !secrets.isEmpty else { return text }
        var text = secrets.reduce(text) { text, secret in
            text.contains(secret) ? text.replacing(secret, with: "REDACTED") : text
        }
        // Only text with a backslash can hold an escape: most answers pay this one byte scan.
        guard text.utf8.contains(UInt8(ascii: "\\")) else { return text }
        for secret in secrets where !secret.isEmpty {
            var bytes = Array(text.utf8)
            let found = escapedOccurrences(of: Array(secret.unicodeScalars), in: bytes)
            guard !found.isEmpty else { continue }
            for range in found.reversed() { bytes.replaceSubrange(range, with: "REDACTED".utf8) }
            text = String(decoding: bytes, as: UTF8.self)
        }
        return text
    }

    /// Where `secret` stands in `bytes`, each character as it is or JSON-escaped, without overlaps.
    static func escapedOccurrences(of secret: [Unicode.Scalar], in bytes: [UInt8]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var start = 0
        let first = Array(String(secret[0]).utf8)[0]
        while start < bytes.count {
            if bytes[start] == first || bytes[start] == UInt8(ascii: "\\"),
                let end = matchEnd(of: secret, in: bytes, from: start)
            {
                found.append(start..<end)
                start = end
            } else {
                start += 1
            }
        }
        return found
    }

    /// The end of `secret` read from `start`, each character as it is or as one JSON escape; nil if it is not there.
    private static func matchEnd(of secret: [Unicode.Scalar], in bytes: [UInt8], from start: Int) -> Int? {
        var position = start
        for scalar in secret {
            let plain = String(scalar).utf8
            if bytes[position...].starts(with: plain) {
                position += plain.count
            } else if let (value, next) = escape(in: bytes, at: position), value == scalar.value {
                position = next
            } else {
                return nil
            }
        }
        return position
    }

    /// The character a JSON escape at `position` stands for (a surrogate pair read as one), and where it ends.
    private static func escape(in bytes: [UInt8], at position: Int) -> (UInt32, Int)? {
        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\") else { return nil }
        switch bytes[position + 1] {
        case UInt8(ascii: "/"), UInt8(ascii: "\\"), UInt8(ascii: "\""):
            return (UInt32(bytes[position + 1]), position + 2)
        case UInt8(ascii: "b"): return (0x08, position + 2)
        case UInt8(ascii: "f"): return (0x0C, position + 2)
        case UInt8(ascii: "n"): return (0x0A, position + 2)
        case UInt8(ascii: "r"): return (0x0D, position + 2)
        case UInt8(ascii: "t"): return (0x09, position + 2)
        case UInt8(ascii: "u"):
            guard let high = hex4(bytes, at: position + 2) else { return nil }
            guard (0xD800..<0xDC00).contains(high) else { return (high, position + 6) }
            guard bytes[(position + 6)...].starts(with: "\\u".utf8), let low = hex4(bytes, at: position + 8),
                (0xDC00..<0xE000).contains(low)
            else { return nil }
            return (0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00), position + 12)
        default: return nil
        }
    }

    /// Four hex digits at `position`, either case.
    private static func hex4(_ bytes: [UInt8], at position: Int) -> UInt32? {
        guard position + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[position..<(position + 4)] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
