import Synchronization

/// Which origins (`https://host:port`) have answered over a connection that multiplexes (HTTP/2), and which not.
///
/// The requests to an origin that multiplexes, or may (HTTPS not yet answered), go to one loop, the origin's own,
/// and share its one connection. Spread over the loops as other requests are, each loop opened a connection of its
/// own, and two threads split the work of what one connection carries: on an HTTP/2 upload that cost a third more
/// CPU than curl's single connection. An origin that answers over HTTP/1.1 goes back to the least busy loop.
final class MultiplexedOrigins: Sendable {
    /// true: its answers came multiplexed; false: over HTTP/1.1.
    private let origins = Mutex<[String: Bool]>([:])

    /// Notes how a transfer to `url` was answered.
    func record(_ url: String, multiplexed: Bool) {
        let origin = Self.origin(of: url)
        origins.withLock { $0[origin] = multiplexed }
    }

    /// Whether `url`'s origin multiplexes as far as is known: as it last answered, else `untilAnswered`.
    func mayMultiplex(_ url: String, untilAnswered: Bool) -> Bool {
        guard untilAnswered else { return false }
        let origin = Self.origin(of: url)
        return origins.withLock { $0[origin] } ?? true
    }

    /// The index among `count` loops that serves `url`: its origin's own when it multiplexes, or may (`mayMultiplex`
    /// and not yet answered); nil when any loop will do.
    func loop(for url: String, mayMultiplex: Bool, among count: Int) -> Int? {
        guard count > 1 else { return nil }
        let origin = Self.origin(of: url)
        guard origins.withLock({ $0[origin] }) ?? mayMultiplex else { return nil }
        return Self.home(ofOrigin: origin, among: count)
    }

    /// The loop among `count` that `url`'s origin keeps to when it keeps to one; nil when there is one loop.
    static func home(of url: String, among count: Int) -> Int? {
        count > 1 ? home(ofOrigin: origin(of: url), among: count) : nil
    }

    private static func home(ofOrigin origin: String, among count: Int) -> Int {
        var hasher = Hasher()
        hasher.combine(origin)
        return Int(UInt(bitPattern: hasher.finalize()) % UInt(count))
    }

    /// `scheme://authority` of `url`, lowercased: what a connection is shared by. A scan of the bytes, as it runs
    /// twice per request.
    static func origin(of url: String) -> String {
        var url = url
        return url.withUTF8 { bytes in
            var end = bytes.count
            var slashes = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if slashes == 2 {
                    if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                        end = index
                        break
                    }
                } else if byte == UInt8(ascii: "/") {
                    slashes += 1
                } else if slashes > 0 {
                    break  // no "//" after the scheme: no authority, so the whole string is the key
                }
                index += 1
            }
            let origin = UnsafeBufferPointer(rebasing: bytes[..<end])
            let text = String(decoding: origin, as: UTF8.self)
            return origin.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? text.lowercased() : text
        }
    }
}
