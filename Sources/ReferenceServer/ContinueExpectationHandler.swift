import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Sends the interim `100 Continue` for requests carrying `Expect: 100-continue`, at the moment
/// the route handler decides to read the body.
///
/// Hummingbird 2 does not answer the expectation itself, and libcurl (the uploader's HTTP engine)
/// sends it for large bodies and `PUT`s, then stalls for a second waiting. Answering it only when
/// the handler commits to reading — rather than as soon as the head arrives — keeps injected
/// resets clean: a connection dropped before that point has sent the client no bytes at all, so
/// it sees a pure transport error rather than a stray `100` status.
final class ContinueExpectationHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    /// Whether the current request still awaits its `100 Continue`; touched only on the event loop.
    private var continuePending = false

    init() {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) {
            continuePending = head.headerFields[.expect]?.lowercased() == "100-continue"
        }
        context.fireChannelRead(data)
    }

    /// Writes the pending `100 Continue`, if any, from this handler's position in the pipeline so
    /// Hummingbird's response state tracking (further down the pipeline) never sees it.
    private func sendContinueIfPending(context: ChannelHandlerContext) {
        guard continuePending else { return }
        continuePending = false
        context.writeAndFlush(wrapOutboundOut(.head(HTTPResponse(status: .continue))), promise: nil)
    }

    /// Sends the `100 Continue` owed on `channel`'s current request, if there is one. Call it right
    /// before reading the request body.
    static func sendContinueIfPending(on channel: any Channel) async {
        try? await channel.eventLoop.submit {
            let context = try channel.pipeline.syncOperations.context(handlerType: ContinueExpectationHandler.self)
            (context.handler as? ContinueExpectationHandler)?.sendContinueIfPending(context: context)
        }.get()
    }
}

extension HTTPRequest {
    /// Whether the client waits for `100 Continue` before sending its body.
    var expectsContinue: Bool {
        headerFields[.expect]?.lowercased() == "100-continue"
    }
}
