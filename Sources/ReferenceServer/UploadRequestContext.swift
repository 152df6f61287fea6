import Hummingbird
import NIOConcurrencyHelpers
import NIOCore

/// Request context for the reference server.
///
/// Besides the usual core storage it keeps the connection's `Channel` — the only handle that lets
/// a handler abort the TCP connection for reset injection — and a byte counter shared between the
/// upload handlers and the request log.
struct UploadRequestContext: RequestContext {
    /// Hummingbird's per-request storage (logger, parameters, endpoint path).
    var coreContext: CoreRequestContextStorage
    /// The child channel of the HTTP connection carrying this request.
    let channel: any Channel
    /// Request body bytes read so far; a reference so copies of the context share it.
    let bodyBytes: ByteCounter

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
        self.bodyBytes = ByteCounter()
    }
}

/// A thread-safe running total of bytes.
final class ByteCounter: Sendable {
    private let total = NIOLockedValueBox(0)

    /// Adds `count` bytes.
    func add(_ count: Int) { total.withLockedValue { $0 += count } }

    /// The current total.
    var value: Int { total.withLockedValue { $0 } }
}
