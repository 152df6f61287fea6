import Foundation
import Synchronization

/// An HTTP/1.1 listener on 127.0.0.1 that keeps every request exactly as it arrived (head and body bytes) and
/// answers each `200` with an empty body: for tests about the bytes on the wire, which a real server parses away.
final class RawCapture: Sendable {
    struct Request: Sendable {
        /// The request line and header lines, without the blank line.
        var head: [String]
        var body: [UInt8]

        /// The value of header `name` (case-insensitive), if sent.
        func header(_ name: String) -> String? {
            head.dropFirst().lazy.compactMap { line -> String? in
                guard let colon = line.firstIndex(of: ":"),
                    line[..<colon].caseInsensitiveCompare(name) == .orderedSame
                else { return nil }
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }.first
        }
    }

    let port: Int
    private let listener: Int32
    private let captured = Mutex<[Request]>([])

    init() throws {
        (listener, port) = try Loopback.listen()
        Thread { [self] in acceptLoop() }.start()
    }

    var url: String { "http://127.0.0.1:\(port)/capture" }

    /// The requests received so far, in order.
    var requests: [Request] { captured.withLock { $0 } }

    /// Stops accepting; connections being served end when their client closes them.
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            // The head first, then as many body bytes as it declares.
            var headEnd: Int?
            while headEnd == nil {
                headEnd = Self.find([13, 10, 13, 10], in: pending)
                if headEnd != nil { break }
                let count = recv(connection, &buffer, buffer.count, 0)
                guard count > 0 else { return }
                pending += buffer[..<count]
            }
            let head = String(decoding: pending[..<headEnd!], as: UTF8.self).components(separatedBy: "\r\n")
            var request = Request(head: head, body: [])
            let length = Int(request.header("Content-Length") ?? "0") ?? 0
            pending.removeFirst(headEnd! + 4)
            while pending.count < length {
                let count = recv(connection, &buffer, buffer.count, 0)
                guard count > 0 else { return }
                pending += buffer[..<count]
            }
            request.body = Array(pending[..<length])
            pending.removeFirst(length)
            captured.withLock { $0.append(request) }
            let reply = Array("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)
            guard send(connection, reply, reply.count, Int32(MSG_NOSIGNAL)) == reply.count else { return }
        }
    }

    /// Where `needle` first starts in `haystack`.
    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
