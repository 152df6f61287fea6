import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers a request that asks to upgrade the connection (`Upgrade: h2c`, as `curl --http2` and
/// `uploader-tui --http2` send over http://) over HTTP/1.1, and then closes the connection.
///
/// This server does not upgrade, and NIO's HTTP/1 decoder stops reading a connection after a request that
/// asked to: the next request on it would never be answered. `Connection: close` on the answer tells the
/// client to send its next request on a new connection.
final class UpgradeRefusalHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    /// The request being answered asked to upgrade; touched only on the event loop.
    private var refusing = false

    init() {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data), head.headerFields[.upgrade] != nil {
            refusing = true
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard refusing else { return context.write(data, promise: promise) }
        switch unwrapOutboundIn(data) {
        case .head(var head) where head.status.kind != .informational:
            head.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            refusing = false
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenComplete { _ in context.close(promise: nil) }
            written.futureResult.cascade(to: promise)
            context.write(data, promise: written)
        default:
            context.write(data, promise: promise)
        }
    }
}
