import Foundation
import MultipartKit
import NIOCore
import Testing

@testable import ReferenceServer

/// The streaming multipart parser, checked against multipart-kit's parser as an oracle.
@Suite("Multipart stream parser")
struct MultipartStreamParserTests {
    /// Everything a parser reported, in order.
    enum Event: Equatable {
        case header(String, String)
        case body([UInt8])
        case partComplete
    }

    /// Runs our parser over `body` split at `splits`, merging adjacent body events so differently
    /// chunked runs compare equal.
    static func parse(_ body: [UInt8], boundary: String, splits: [Int]) throws -> (events: [Event], complete: Bool) {
        let parser = MultipartStreamParser(boundary: boundary)
        var events: [Event] = []
        parser.onHeader = { events.append(.header($0, $1)) }
        parser.onBody = { events.appendBody(Array($0.readableBytesView)) }
        parser.onPartComplete = { events.append(.partComplete) }
        var start = 0
        for end in splits.sorted() + [body.count] where end >= start {
            try parser.execute(ByteBuffer(bytes: body[start..<end]))
            start = end
        }
        return (events, parser.isComplete)
    }

    /// Runs multipart-kit's `MultipartParser` over the whole body.
    static func oracle(_ body: [UInt8], boundary: String) throws -> [Event] {
        let parser = MultipartParser(boundary: boundary)
        var events: [Event] = []
        parser.onHeader = { events.append(.header($0, $1)) }
        parser.onBody = { events.appendBody(Array($0.readableBytesView)) }
        parser.onPartComplete = { events.append(.partComplete) }
        try parser.execute(ByteBuffer(bytes: body))
        return events
    }

    /// Builds a well-formed body whose contents are biased towards CR, LF, `-` and boundary
    /// prefixes, the bytes a boundary search can trip over.
    static func randomBody(boundary: String, parts: Int) -> [UInt8] {
        let tricky: [[UInt8]] = [[13], [10], [13, 10], Array("--".utf8), Array("\r\n--".utf8),
            Array("\r\n--\(boundary.dropLast())".utf8), Array("--\(boundary)".utf8)]
        var body = Array("--\(boundary)\r\n".utf8)
        for index in 0..<parts {
            body += Array("Content-Disposition: form-data; name=\"f\(index)\"; filename=\"n\(index).bin\"\r\n".utf8)
            body += Array("Content-Type: application/octet-stream\r\n\r\n".utf8)
            let delimiter = Array("\r\n--\(boundary)".utf8)
            var content: [UInt8]
            repeat {
                content = []
                for _ in 0..<Int.random(in: 0...40) {
                    content += Bool.random() ? tricky.randomElement()! : (0..<Int.random(in: 1...50)).map { _ in UInt8.random(in: 0...255) }
                }
                // Content must not contain the delimiter (that would make it a different body).
            } while firstOccurrence(of: delimiter, in: content + delimiter) != content.count
            body += content + delimiter
            body += Array(index == parts - 1 ? "--\r\n".utf8 : "\r\n".utf8)
        }
        return body
    }

    static func firstOccurrence(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }

    @Test("matches multipart-kit on random bodies split at random points", arguments: 0..<25)
    func differential(iteration: Int) throws {
        let boundary = "----b\(UUID().uuidString.prefix(8 + iteration % 8))"
        let body = Self.randomBody(boundary: boundary, parts: Int.random(in: 1...4))
        let splits = (0..<Int.random(in: 0...12)).map { _ in Int.random(in: 0...body.count) }

        let ours = try Self.parse(body, boundary: boundary, splits: splits)
        let expected = try Self.oracle(body, boundary: boundary)

        #expect(ours.events == expected)
        #expect(ours.complete)
    }

    @Test("byte-at-a-time input gives the same events as one chunk")
    func byteAtATime() throws {
        let boundary = "xyz"
        let body = Self.randomBody(boundary: boundary, parts: 3)
        let whole = try Self.parse(body, boundary: boundary, splits: [])
        let bytewise = try Self.parse(body, boundary: boundary, splits: Array(0..<body.count))
        #expect(whole.events == bytewise.events)
        #expect(whole.events.filter { $0 == .partComplete }.count == 3)
    }

    @Test("a body cut short is not complete")
    func truncated() throws {
        let body = Self.randomBody(boundary: "cut", parts: 2)
        let result = try Self.parse(Array(body.dropLast(Int.random(in: 3...10))), boundary: "cut", splits: [])
        #expect(!result.complete)
    }

    @Test("garbage after the boundary line is rejected")
    func malformedBoundaryLine() {
        let body = Array("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n--bXX".utf8)
        #expect(throws: ReferenceServerError.self) { try Self.parse(body, boundary: "b", splits: []) }
    }

    @Test("Content-Disposition parameters keep backslashes and percent escapes verbatim")
    func dispositionParameters() {
        let header = HeaderValue(parsing: #"form-data; name="file"; filename="a\b%22c%0Ad.txt""#)
        #expect(header.value == "form-data")
        #expect(header.parameters["name"] == "file")
        #expect(header.parameters["filename"] == #"a\b%22c%0Ad.txt"#)
        let contentType = HeaderValue(parsing: "Multipart/Form-Data; Boundary=abc ; charset=utf-8")
        #expect(contentType.value == "multipart/form-data")
        #expect(contentType.parameters["boundary"] == "abc")
    }
}

extension Array where Element == MultipartStreamParserTests.Event {
    /// Appends body bytes, merging with a preceding body event.
    mutating func appendBody(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        if case .body(let previous) = last {
            self[count - 1] = .body(previous + bytes)
        } else {
            append(.body(bytes))
        }
    }
}
