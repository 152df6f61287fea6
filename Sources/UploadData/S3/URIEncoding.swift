/// RFC 3986 percent-encoding as SigV4 defines it: unreserved characters (`A–Z a–z 0–9 - . _ ~`) stay,
/// every other UTF-8 byte becomes `%XX` with upper-case hex.
enum URIEncoding {
    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Whether `byte` is in RFC 3986's unreserved set.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Whether `byte` may stand unescaped in a URL path segment: the unreserved set and `!$&'()*+,:=@`, as
    /// Foundation's `urlPathAllowed` less `/;?#%`.
    static func isPathSegmentByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&")...UInt8(ascii: ","), UInt8(ascii: ":"),
            UInt8(ascii: "="), UInt8(ascii: "@"):
            true
        default:
            isUnreserved(byte)
        }
    }

    /// Encodes a relative path for a URL: each segment's bytes outside `isPathSegmentByte` become `%XX`, the `/`
    /// between segments stays. Foundation's `addingPercentEncoding` built its character set on every call, which
    /// cost more than the rest of a request's planning (issue 20, docs/engine.md).
    static func encodePath(_ path: some StringProtocol) -> String {
        escaping(path.utf8, capacity: path.utf8.count + 16) { isPathSegmentByte($0) || $0 == UInt8(ascii: "/") }
    }

    /// Encodes bytes; `keepSlash` leaves `/` alone, as object keys in a path need.
    static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes, keepSlash: Bool = false) -> String {
        escaping(bytes, capacity: bytes.underestimatedCount * 3) {
            isUnreserved($0) || (keepSlash && $0 == UInt8(ascii: "/"))
        }
    }

    /// `bytes` with each one `keep` refuses written as `%XX`.
    private static func escaping<Bytes: Sequence<UInt8>>(
        _ bytes: Bytes, capacity: Int, keep: (UInt8) -> Bool
    ) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        for byte in bytes {
            if keep(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes a string's UTF-8 bytes.
    static func encode(_ text: some StringProtocol, keepSlash: Bool = false) -> String {
        encode(text.utf8, keepSlash: keepSlash)
    }

    /// Undoes `%XX` escapes, byte for byte; a `%` not followed by two hex digits is kept literally.
    ///
    /// `+` is left alone: in a URL path or an S3 query it is a plus sign, not a space.
    static func decode(_ text: some StringProtocol) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return out
    }

    /// Lower-case hex of a digest or any bytes.
    static func hex<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(lowerHexDigits[Int(byte >> 4)])
            out.append(lowerHexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let lowerHexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
