import Synchronization

/// The origins (`https://host:port`) whose connections have been seen to multiplex (HTTP/2).
///
/// Their requests all go to one loop, the origin's own, and share its one connection. Spread over the loops as
/// other requests are, each loop opened a connection of its own, and two threads split the work of what one
/// connection carries: on an HTTP/2 upload that cost a third more CPU than curl's single connection.
final class MultiplexedOrigins: Sendable {
    private let origins = Mutex<Set<String>>([])

    /// Notes that a transfer to `url` was multiplexed.
    func record(_ url: String) {
        let origin = Self.origin(of: url)
        origins.withLock { _ = $0.insert(origin) }
    }

    /// The index among `count` loops that serves `url`, when its origin multiplexes; nil otherwise.
    func loop(for url: String, among count: Int) -> Int? {
        let origin = Self.origin(of: url)
        guard count > 1, origins.withLock({ $0.contains(origin) }) else { return nil }
        var hasher = Hasher()
        hasher.combine(origin)
        return Int(UInt(bitPattern: hasher.finalize()) % UInt(count))
    }

    /// `scheme://authority` of `url`, lowercased: what a connection is shared by.
    static func origin(of url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url.lowercased() }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return url[..<authorityEnd].lowercased()
    }
}
