import Crypto
import Foundation
import NIOConcurrencyHelpers

/// Issues and checks the bearer tokens of a ``ReferenceServer``: the configured static token and
/// the self-contained tokens handed out by `POST /auth/refresh`.
///
/// An issued token is `t1.<expiresMillis>.<generation>.<nonce>.<hexsig>`: expiry in Unix
/// milliseconds (`0` = never), the ``expireAll()`` generation it was issued in, 16 random bytes
/// as hex, and the lowercase hex HMAC-SHA256 of everything before the last dot. The key is drawn
/// at random per server, so a token is worthless to any other server or after a restart, and the
/// server keeps no list of what it issued.
final class TokenAuthority: Sendable {
    /// How a presented credential fares.
    enum Verdict: Equatable, Sendable {
        /// Authentic and current.
        case valid
        /// Authentic but past its expiry or issued before ``expireAll()``; may still be refreshed.
        case expired
        /// Not the static token and not a token this server signed.
        case invalid
    }

    /// The token configured on the server, if any.
    let staticToken: String?
    /// Lifetime of tokens in seconds; nil = no time limit.
    let ttl: Double?
    private let now: @Sendable () -> Double
    /// When the server was created; the static token expires at `createdAt + ttl`.
    private let createdAt: Double
    /// The HMAC key's bytes (`SymmetricKey` itself is not `Sendable`).
    private let keyBytes: [UInt8]
    /// Bumped by ``expireAll()``; tokens from an older generation (and the static token once it is
    /// above zero) count as expired. A counter rather than a cut-off time, so a token issued in the
    /// same millisecond as the call is still told apart.
    private let generation = NIOLockedValueBox(0)

    static let prefix = "t1"

    init(staticToken: String?, ttl: Double?, now: @escaping @Sendable () -> Double) {
        self.staticToken = staticToken
        self.ttl = ttl
        self.now = now
        self.createdAt = now()
        self.keyBytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
    }

    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }

    /// Makes every token issued so far, and the static token, expired from now on.
    func expireAll() {
        generation.withLockedValue { $0 += 1 }
    }

    /// A fresh token valid for ``ttl`` seconds from now (or until the next ``expireAll()``).
    func issue() -> String {
        let expires = ttl.map { Int64(((now() + $0) * 1000).rounded(.down)) } ?? 0
        let nonce = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let payload = "\(Self.prefix).\(expires).\(generation.withLockedValue { $0 }).\(nonce)"
        return payload + "." + signature(of: payload)
    }

    /// Judges an `Authorization` header value (`Bearer <token>`, scheme case-insensitive).
    func verdict(forAuthorization header: String?) -> Verdict {
        guard let header else { return .invalid }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return .invalid }
        return verdict(forToken: parts[1].trimmingCharacters(in: .whitespaces))
    }

    /// Judges a bare token.
    func verdict(forToken token: String) -> Verdict {
        let currentGeneration = generation.withLockedValue { $0 }
        if let staticToken, Self.constantTimeEqual(token, staticToken) {
            if currentGeneration > 0 { return .expired }
            if let ttl, now() >= createdAt + ttl { return .expired }
            return .valid
        }
        let fields = token.split(separator: ".", omittingEmptySubsequences: false)
        guard fields.count == 5, fields[0] == Self.prefix,
            let expires = Int64(fields[1]), let issuedGeneration = Int(fields[2]),
            let signature = TicketSigner.bytes(fromHex: String(fields[4])), signature.count == SHA256.byteCount
        else { return .invalid }
        let payload = fields[0..<4].joined(separator: ".")
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data(payload.utf8), using: key) else {
            return .invalid
        }
        if issuedGeneration < currentGeneration { return .expired }
        if expires != 0, now() * 1000 >= Double(expires) { return .expired }
        return .valid
    }

    private func signature(of payload: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)
        return Data(code).map { String(format: "%02x", $0) }.joined()
    }

    /// Compares without an early exit on the first differing byte, so response timing does not
    /// reveal how much of a guessed token was right.
    static func constantTimeEqual(_ given: String, _ expected: String) -> Bool {
        let given = Array(given.utf8)
        let expected = Array(expected.utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for index in 0..<expected.count {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }
}
