import HTTPTypes
import Testing

@testable import ReferenceServer

/// Parsing of the `Idempotency-Key` header: an sf-string or a bare token, refused with 400 otherwise.
@Suite("IdempotencyKey")
struct IdempotencyKeyTests {
    static let name = HTTPField.Name("Idempotency-Key")!

    @Test("the quoted and the bare form name the same key")
    func quotedAndBare() throws {
        let hex = "0123456789abcdef0123456789abcdef"
        #expect(try IdempotencyKey(parsing: "\"ut1-\(hex)\"").value == "ut1-\(hex)")
        #expect(try IdempotencyKey(parsing: "ut1-\(hex)").value == "ut1-\(hex)")
        #expect(try IdempotencyKey(parsing: " \t\"a b\" ").value == "a b")
        #expect(try IdempotencyKey(parsing: #""say \"hi\" \\o/""#).value == #"say "hi" \o/"#)
        #expect(try IdempotencyKey(parsing: String(repeating: "k", count: 255)).value.count == 255)
        #expect(try IdempotencyKey(parsing: "\"" + String(repeating: "k", count: 255) + "\"").value.count == 255)
    }

    @Test(
        "malformed keys are refused with 400 invalidIdempotencyKey",
        arguments: [
            "", "\"\"", "   ", String(repeating: "k", count: 256), "\"" + String(repeating: "k", count: 256) + "\"",
            "a\tb", "\"a\u{1}b\"", "a\u{7F}", "ключ", "\"open", "\"a\"b", #""a\nb""#, "a b", "a\"b",
        ])
    func malformed(header: String) {
        #expect {
            try IdempotencyKey(parsing: header)
        } throws: { error in
            let error = error as? ReferenceServerError
            return error?.code == .invalidIdempotencyKey && error?.statusCode == 400
        }
    }

    @Test("an absent header is no key; a repeated one is refused")
    func fromHeaders() throws {
        #expect(try IdempotencyKey(from: [.contentType: "text/plain"]) == nil)
        #expect(try IdempotencyKey(from: [Self.name: "\"k\""])?.value == "k")
        var twice = HTTPFields()
        twice.append(HTTPField(name: Self.name, value: "\"k\""))
        twice.append(HTTPField(name: Self.name, value: "\"k\""))
        #expect(throws: ReferenceServerError.self) { try IdempotencyKey(from: twice) }
    }
}
