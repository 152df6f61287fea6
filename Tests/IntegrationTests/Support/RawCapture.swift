import Foundation
import Synchronization
import Testing
import UploadDomain

@testable import UploadData

/// An HTTP/1.1 listener on 127.0.0.1 that keeps every request exactly as it arrived (head and body bytes) and
/// answers each `200` with an empty body: for tests about the bytes on the wire, which a real server parses away.
final class RawCapture: Sendable {
    struct Request: Sendable {
        /// The request line and header lines, without the blank line.
        var head: [String]
        var body: [UInt8]

        /// The multipart boundary its `Content-Type` names.
        var boundary: String? { header("Content-Type")?.components(separatedBy: "boundary=").last }

        /// Whether `other`'s body, its boundary replaced by this one's (of the same length), is this body.
        func sameMultipartBody(as other: Request) -> Bool {
            guard let mine = boundary, let theirs = other.boundary, mine.count == theirs.count else { return false }
            return RawCapture.replacing(Array(theirs.utf8), with: Array(mine.utf8), in: other.body) == body
        }

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

    /// The whole answer to each request (status line, headers and body).
    private let reply: @Sendable (Request) -> String
    /// Answer once the head is in, then read nothing more (the body stays unread until `stop`).
    private let answersBeforeBody: Bool
    private let heldConnections = Mutex<[Int32]>([])

    init(
        answersBeforeBody: Bool = false,
        reply: @escaping @Sendable (Request) -> String = { _ in "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" }
    ) throws {
        self.reply = reply
        self.answersBeforeBody = answersBeforeBody
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
        for connection in heldConnections.withLock({ $0 }) { close(connection) }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        var held = false
        defer { if !held { close(connection) } }
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
            if answersBeforeBody {
                captured.withLock { $0.append(request) }
                let reply = Array(self.reply(request).utf8)
                _ = send(connection, reply, reply.count, Int32(MSG_NOSIGNAL))
                heldConnections.withLock { $0.append(connection) }
                held = true
                return
            }
            while pending.count < length {
                let count = recv(connection, &buffer, buffer.count, 0)
                guard count > 0 else { return }
                pending += buffer[..<count]
            }
            request.body = Array(pending[..<length])
            pending.removeFirst(length)
            captured.withLock { $0.append(request) }
            let reply = Array(self.reply(request).utf8)
            guard send(connection, reply, reply.count, Int32(MSG_NOSIGNAL)) == reply.count else { return }
        }
    }

    /// `body` with every `old` replaced by `new`, of the same length.
    static func replacing(_ old: [UInt8], with new: [UInt8], in body: [UInt8]) -> [UInt8] {
        var result = body
        var from = 0
        while let at = RawCapture.find(old, in: Array(result[from...])) {
            result.replaceSubrange((from + at)..<(from + at + old.count), with: new)
            from += at + old.count
        }
        return result
    }

    /// Where `needle` first starts in `haystack`.
    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

extension RawCapture {
    /// One multipart request to this listener with names that need escaping (a quote, CR, LF) in its fields, its
    /// file field and two of its three files: a JPEG of `sizes[0]` bytes, a PNG of `sizes[1]` and an empty file.
    func hostileForm(in folder: TestFolder, sizes: (Int, Int)) async throws -> (TransferRequest, [UploadItem]) {
        try folder.write("quote\"d.jpg", size: sizes.0, seed: 1, prefix: Magic.jpeg)
        try folder.write("cr\rlf\n.png", size: sizes.1, seed: 2, prefix: Magic.png)
        try folder.write("empty.bin", size: 0, seed: 3)
        let items = try FileScanner().scan([folder.path]).items
        let planner = MultipartPlanner(
            url: url, fileField: "fi\"le",
            fields: [FormField(name: "no\"te", value: "a\r\nb"), FormField(name: "plain", value: "x")],
            headers: [], token: nil, batchSize: 3, idempotencyKeys: false)
        return (try await planner.request(for: items), items)
    }

    /// Sends the form of `request` (a multipart one) here with curl's own tool, `curl -F`: libcurl's MIME API
    /// framing it, the reference for the bodies framed by `MultipartFraming`.
    func sendWithCurlTool(_ request: TransferRequest) async throws {
        guard case .multipart(let fields, let fileField, let files) = request.body else {
            preconditionFailure("Invalid test: curl -F sends a multipart request")
        }
        // A quoted word of -F may hold anything; backslash escapes its quotes and backslashes.
        func quoted(_ text: String) -> String {
            "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        var arguments = ["-sS", "-o", "/dev/null", "-H", "Expect:"]
        for field in fields { arguments += ["--form-string", "\(field.name)=\(field.value)"] }
        for item in files {
            arguments += [
                "-F",
                "\(fileField)=@\(quoted(item.path));type=\(item.contentType);filename=\(quoted(item.relativePath))",
            ]
        }
        let outcome = try await ChildProcess.run("/usr/bin/curl", arguments + [request.url])
        try #require(outcome.status == 0, "curl -F: \(outcome.standardError)")
    }
}
