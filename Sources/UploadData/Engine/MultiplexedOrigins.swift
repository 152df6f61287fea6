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

    /// The index among `count` loops that serves `url`: its origin's own when it multiplexes, or may (`mayMultiplex`
    /// and not yet answered); nil when any loop will do.
    func loop(for url: String, mayMultiplex: Bool, among count: Int) -> Int? {
        guard count > 1 else { return nil }
        let origin = Self.origin(of: url)
        guard origins.withLock({ $0[origin] }) ?? mayMultiplex else { return nil }
        var hasher = Hasher()
        hasher.combine(origin)
        return Int(UInt(bitPattern: hasher.finalize()) % UInt(count))
    }

    /// `scheme://authority` of `url`, ASCII-lowercased: what a connection is shared by. A scan of the bytes, as it
    /// runs twice per request.
    static func origin(of url: String) -> String {
        let bytes = url.utf8
        var end = bytes.endIndex
        var index = bytes.startIndex
        var slashes = 0
        var afterScheme = false
        while index != bytes.endIndex {
            let byte = bytes[index]
            if afterScheme {
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                    end = index
                    break
                }
            } else if byte == UInt8(ascii: "/") {
                slashes += 1
                afterScheme = slashes == 2
            } else if slashes > 0 {
                break  // no "//" after the scheme: not a URL with an authority; the whole string is its key
            }
            index = bytes.index(after: index)
        }
        var origin = Array(bytes[..<end])
        for index in origin.indices where origin[index] >= UInt8(ascii: "A") && origin[index] <= UInt8(ascii: "Z") {
            origin[index] += 32
        }
        return String(decoding: origin, as: UTF8.self)
    }
}
