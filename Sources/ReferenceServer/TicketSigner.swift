import Crypto
import Foundation

/// The signed facts of one upload ticket: which key may be written, until when, with which
/// `Content-Type`, and at most how many bytes (`0` = no cap).
struct TicketClaims: Sendable, Equatable {
    /// Object key, e.g. `media/archive/<mediaID>/cat.jpg` (not percent-encoded).
    var key: String
    /// Unix time (seconds) after which the ticket is refused.
    var expires: Int
    /// The exact `Content-Type` the `PUT` must carry.
    var contentType: String
    /// Largest accepted body in bytes; `0` means unlimited.
    var maxBytes: Int

    /// `"PUT\n<key>\n<expires>\n<ct>\n<max>"`: the string the signature covers.
    var stringToSign: String {
        "PUT\n\(key)\n\(expires)\n\(contentType)\n\(maxBytes)"
    }
}

/// Signs and verifies upload tickets with HMAC-SHA256.
///
/// The ticket is a plain URL, `<base>/objects/<key>?expires=…&ct=…&max=…&sig=<hex>`; the signature is
/// the credential, so `PUT /objects/...` needs no bearer token.
struct TicketSigner: Sendable {
    /// The HMAC key's bytes (`SymmetricKey` itself is not `Sendable`).
    private let keyBytes: [UInt8]

    /// Uses `secret`'s UTF-8 bytes as the key, or a fresh random 256-bit key when nil.
    init(secret: String?) {
        if let secret {
            keyBytes = Array(secret.utf8)
        } else {
            keyBytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        }
    }

    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }

    /// Lowercase hex HMAC-SHA256 of the claims' string-to-sign.
    func signature(for claims: TicketClaims) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(claims.stringToSign.utf8), using: key)
        return Data(code).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `signature` (hex, either case) is the HMAC of `claims`; compared in constant time.
    func isValid(signature: String, for claims: TicketClaims) -> Bool {
        guard let bytes = Self.bytes(fromHex: signature), bytes.count == SHA256.byteCount else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(
            bytes, authenticating: Data(claims.stringToSign.utf8), using: key)
    }

    /// Builds the ticket URL under `baseURL` (`http://host:port`, no trailing slash).
    func ticketURL(baseURL: String, claims: TicketClaims) -> String {
        let path = claims.key.split(separator: "/", omittingEmptySubsequences: false)
            .map { URLEncoding.component(String($0)) }.joined(separator: "/")
        return baseURL + "/objects/" + path
            + "?expires=\(claims.expires)"
            + "&ct=\(URLEncoding.component(claims.contentType))"
            + "&max=\(claims.maxBytes)"
            + "&sig=\(signature(for: claims))"
    }

    static func bytes(fromHex hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}

/// Strict percent-encoding: everything but RFC 3986 unreserved characters is escaped, so a `+`,
/// `/`, `;` or space in a content type or filename can never be misread by a URL parser.
enum URLEncoding {
    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `text` with every non-unreserved UTF-8 byte written as `%XX`.
    static func component(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
