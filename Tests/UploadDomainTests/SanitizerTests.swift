import Testing

@testable import UploadDomain

@Suite("Sanitizer and Redactor")
struct SanitizerTests {
    @Test("control characters and escape sequences are shown escaped")
    func escapes() {
        #expect(Sanitizer.displayName("a\u{1B}[31mb") == "a\\x1B[31mb")
        #expect(Sanitizer.displayName("line\r\nbreak") == "line\\x0D\\x0Abreak")
        #expect(Sanitizer.displayName("rtl\u{202E}gpj.exe") == "rtl\\u{202E}gpj.exe")
        #expect(Sanitizer.displayName("고양이 😀.jpg") == "고양이 😀.jpg")
    }

    @Test("the bidi marks are escaped as the overrides and isolates are (found by make fuzz)")
    func bidiMarks() {
        #expect(Sanitizer.displayName("a\u{200E}b\u{200F}c\u{061C}d") == "a\\u{200E}b\\u{200F}c\\u{061C}d")
        #expect(Sanitizer.displayName("\u{2066}x\u{2069}") == "\\u{2066}x\\u{2069}")
        #expect(Sanitizer.excerpt("\n\n\u{200F}n") == "\\u{200F}n")
    }

    @Test("every invisible format character (Cf) is escaped as the bidi controls are; emoji keep their joiners")
    func invisibleFormatCharacters() {
        #expect(Sanitizer.displayName("zero\u{200B}width.txt") == "zero\\u{200B}width.txt")
        let invisible: [(Unicode.Scalar, String)] = [
            ("\u{200C}", "200C"), ("\u{200D}", "200D"), ("\u{2060}", "2060"), ("\u{2061}", "2061"),
            ("\u{2064}", "2064"), ("\u{FEFF}", "FEFF"), ("\u{180E}", "180E"), ("\u{00AD}", "00AD"),
            ("\u{E0041}", "E0041"),
        ]
        for (scalar, hex) in invisible {
            #expect(Sanitizer.displayName("a\(scalar)b") == "a\\u{\(hex)}b", "U+\(hex)")
        }
        // A joiner between emoji is seen as the emoji it makes; between letters, or after a digit, it hides.
        #expect(Sanitizer.displayName("👩\u{200D}💻 notes.txt") == "👩\u{200D}💻 notes.txt")
        #expect(Sanitizer.displayName("👍🏽\u{200D}👍.jpg") == "👍🏽\u{200D}👍.jpg")
        #expect(Sanitizer.displayName("1\u{200D}👍") == "1\\u{200D}👍")
        #expect(Sanitizer.displayName("👩\u{200D}x") == "👩\\u{200D}x")
        #expect(Sanitizer.excerpt("a\u{FEFF}b\u{2063}c") == "a\\u{FEFF}b\\u{2063}c")
    }

    @Test("signatures, credentials and user info are removed from URLs")
    func redaction() {
        let presigned = "https://b.s3.amazonaws.com/k.jpg?X-Amz-Credential=AKIA/x&X-Amz-Signature=abc123&x-id=PutObject"
        let redacted = Redactor.url(presigned)
        #expect(!redacted.contains("abc123"))
        #expect(!redacted.contains("AKIA"))
        #expect(redacted.contains("x-id=PutObject"))
        #expect(Redactor.url("http://user:pw@host/p?sig=s3cr3t") == "http://REDACTED@host/p?sig=REDACTED")
        #expect(Redactor.url("http://127.0.0.1:8080/datasets/1/images") == "http://127.0.0.1:8080/datasets/1/images")
        #expect(Redactor.url("https://user:pw@host/dav/cat.jpg") == "https://REDACTED@host/dav/cat.jpg")
        // Every cloud's and API's names, whatever their case and separators; the rest of the query stays.
        let many =
            "https://h/p?X-Goog-Signature=G1&X-Goog-Credential=G2&api-key=A1&access-token=A2&auth_token=A3"
            + "&client_secret=C1&sessionid=S1&code=O1&Password=P1&expires=99&ct=image%2Fjpeg"
        let shown = Redactor.url(many)
        for secret in ["G1", "G2", "A1", "A2", "A3", "C1", "S1", "O1", "P1"] {
            #expect(!shown.contains("=\(secret)"), "\(secret): \(shown)")
        }
        #expect(shown.hasSuffix("&expires=99&ct=image%2Fjpeg"), "\(shown)")
        // A URL's user info goes out as Basic credentials: their base64 is a secret too.
        #expect(Redactor.secrets(in: "http://userx:URLPASS10@h/").contains("dXNlcng6VVJMUEFTUzEw"))
        #expect(Redactor.base64(Array("ab".utf8)) == "YWI=" && Redactor.base64(Array("abcd".utf8)) == "YWJjZA==")
    }

    @Test("headers with CR or LF are refused")
    func headerInjection() {
        #expect(HTTPHeader(line: "X-Test: ok") == HTTPHeader(name: "X-Test", value: "ok"))
        #expect(HTTPHeader(line: "X-Test: a\r\nX-Evil: 1") == nil)
        #expect(HTTPHeader(line: "X-Secret-Token: abc\u{01}") == nil && HTTPHeader(line: "X-Test: a\u{7F}") == nil)
        #expect(HTTPHeader(line: "X-Test: a\tb") != nil)
        #expect(HTTPHeader(line: "Bad Name: x") == nil)
        #expect(HTTPHeader(line: "no colon") == nil)
        #expect(HTTPHeader(name: "X-Test", value: "a\0b") == nil)
        #expect(HTTPHeader(name: "X-Test", value: "a\nb") == nil)
        #expect(HTTPHeader(name: "Ünïcode", value: "x") == nil)
        #expect(HTTPHeader(name: "X-Caf\u{E9}", value: "x") == nil)
        #expect(HTTPHeader(name: "!#$%&'*+-.^_`|~09azAZ", value: "caf\u{E9} \u{1F436}")?.value == "caf\u{E9} \u{1F436}")
    }

    @Test("header names compare without case for letters only")
    func headerNames() {
        #expect(HTTPHeader.sameName("Content-Type", "content-TYPE"))
        #expect(!HTTPHeader.sameName("Content-Type", "Content-Typ"))
        // Folding by a bit would take `^` for `~` and `@` for a backquote.
        #expect(!HTTPHeader.sameName("a^b", "a~b") && !HTTPHeader.sameName("@", "`"))
    }
}
