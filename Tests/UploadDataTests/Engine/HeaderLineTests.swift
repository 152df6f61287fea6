import Testing

@testable import UploadData

@Suite("HeaderLine")
struct HeaderLineTests {
    private func parse(_ text: String) -> HeaderLine {
        Array(text.utf8).withUnsafeBytes { HeaderLine($0) }
    }

    @Test("a field: name lowercased, value without surrounding blanks, inner blanks and case kept")
    func field() {
        #expect(parse("Retry-After:  7 \r\n") == .field(name: "retry-after", value: "7"))
        #expect(parse("ETag:\t\"Ab Cd\"\r\n") == .field(name: "etag", value: "\"Ab Cd\""))
        #expect(
            parse("WWW-Authenticate: Bearer error=\"invalid_token\"\r\n")
                == .field(name: "www-authenticate", value: "Bearer error=\"invalid_token\""))
    }

    @Test("only the first colon splits; an empty value is kept")
    func colons() {
        #expect(parse("Location: http://h:8080/a\r\n") == .field(name: "location", value: "http://h:8080/a"))
        #expect(parse("X-Empty:\r\n") == .field(name: "x-empty", value: ""))
    }

    @Test("status lines, the closing blank line and lines without a colon")
    func others() {
        #expect(parse("HTTP/1.1 100 Continue\r\n") == .status)
        #expect(parse("HTTP/2 201\r\n") == .status)
        #expect(parse("\r\n") == .other)
        #expect(parse("garbage\r\n") == .other)
    }

    @Test("bytes that are not UTF-8 become replacement characters, not a crash")
    func invalidUTF8() {
        let line: [UInt8] = Array("X-Raw: ".utf8) + [0xFF, 0xFE] + Array("\r\n".utf8)
        #expect(line.withUnsafeBytes { HeaderLine($0) } == .field(name: "x-raw", value: "\u{FFFD}\u{FFFD}"))
    }
}
