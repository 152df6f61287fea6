import Testing

@testable import UploaderCLI

@Suite("FileLogHandler")
struct FileLogHandlerTests {
    @Test("values are quoted as logfmt quotes them when a space, = or quote would let them add fields")
    func logfmtValues() {
        #expect(FileLogHandler.logfmt("cat.jpg") == "cat.jpg")
        #expect(
            FileLogHandler.logfmt("secret.pdf http=201 location=ok done, 1 bytes")
                == "\"secret.pdf http=201 location=ok done, 1 bytes\"")
        #expect(FileLogHandler.logfmt("a=b") == "\"a=b\"")
        #expect(FileLogHandler.logfmt("say \"hi\\\"") == "\"say \\\"hi\\\\\\\"\"")
        #expect(FileLogHandler.logfmt("") == "\"\"")
        // Escaped as on screen first: a line break never ends the line, and a name without a space stays bare.
        #expect(FileLogHandler.logfmt("a\nb") == "a\\x0Ab")
        #expect(FileLogHandler.logfmt("no\u{00A0}break") == "\"no\u{00A0}break\"")
    }
}
