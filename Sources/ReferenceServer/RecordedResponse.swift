import HTTPTypes
import Hummingbird
import NIOCore

/// An upload route's answer as data — status, headers, body bytes — so the same answer can be sent
/// now and kept for replaying to a request that repeats its `Idempotency-Key`.
struct RecordedResponse: Sendable, Equatable {
    /// HTTP status code.
    var status: Int
    /// Headers of the answer (`Content-Type`, and `ETag` for objects); no `Content-Length`, which
    /// Hummingbird adds from the body.
    var headers: HTTPFields
    /// The body bytes.
    var body: ByteBuffer

    /// Header telling a client that the answer is the stored answer of an earlier request.
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!

    /// A JSON answer encoded the way ``JSONResponse`` encodes every answer of the server.
    static func json(status: Int, body: some Encodable, headers: HTTPFields = [:]) -> RecordedResponse {
        var fields = headers
        fields[.contentType] = JSONResponse.contentType
        return RecordedResponse(status: status, headers: fields, body: JSONResponse.encode(body))
    }

    /// Whether the status is a success (2xx), the only answers kept for replays.
    var isSuccess: Bool { (200..<300).contains(status) }

    /// The Hummingbird response to send.
    /// - Parameter replayed: adds `Idempotent-Replayed: true`.
    func response(replayed: Bool = false) -> Response {
        var fields = headers
        if replayed { fields[Self.replayedHeader] = "true" }
        return Response(status: .init(code: status), headers: fields, body: .init(byteBuffer: body))
    }
}
