import NIOCore
import NIOHTTPTypes

/// Tells a stalled upload handler that its client has hung up.
///
/// Hummingbird allows half-closure, so a client's close arrives as `ChannelEvent.inputClosed`
/// while the channel stays open; and a handler that has stopped reading the body never sees the
/// body stream end. This handler sits in the pipeline and completes a future on that event (or
/// when the channel goes inactive). NIO reads a socket to EOF on a hang-up even while reading is
/// paused for backpressure, so the event arrives however little of the body was consumed.
final class HangUpObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    /// Pending until the peer has closed its side; nil once completed. Event loop only.
    private var promise: EventLoopPromise<Void>?
    /// The promise's future, kept after completion for late waiters. Event loop only.
    private var hangUp: EventLoopFuture<Void>?

    init() {}

    func handlerAdded(context: ChannelHandlerContext) {
        let promise = context.eventLoop.makePromise(of: Void.self)
        self.promise = promise
        hangUp = promise.futureResult
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        complete()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            complete()
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        complete()
        context.fireChannelInactive()
    }

    private func complete() {
        promise?.succeed()
        promise = nil
    }

    /// Returns once the peer of `channel` has closed its side of the connection, or the channel is
    /// closed.
    static func waitForHangUp(on channel: any Channel) async {
        let future = channel.eventLoop.flatSubmit {
            let observer = try? channel.pipeline.syncOperations.handler(type: HangUpObserver.self)
            return observer?.hangUp ?? channel.closeFuture
        }
        try? await future.get()
    }
}
