import Foundation
import Testing
import UploadDomain

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

    @Test("a failure's and a retry's line carry the HTTP status, as a done one does")
    func statusOnFailures() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString).log").path
        defer { unlink(path) }
        let log = try RunLog.open(path: path, level: "info")
        for (kind, status) in [(UploadEvent.Kind.retrying, 503), (.failed, 500), (.done, 201)] {
            let file = FileSnapshot(
                id: 0, name: "cat.jpg", path: "/p/cat.jpg", destination: "http://h/", size: 10, sent: 10,
                phase: kind == .done ? .done : kind == .failed ? .failed : .queued, attempt: 1, httpStatus: status)
            log.handle(UploadEvent(kind: kind, file: file))
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3, "\(lines)")
        for (line, status) in zip(lines, [503, 500, 201]) { #expect(line.contains(" http=\(status) "), "\(line)") }
    }

    @Test("a run of one file starts with \"1 file\", not \"1 files\"")
    func oneFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString).log").path
        defer { unlink(path) }
        let log = try RunLog.open(path: path, level: "info")
        log.started(source: "/p", destination: "http://h/", files: 1)
        log.started(source: "/p", destination: "http://h/", files: 2)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("run started: 1 file\n") && !text.contains("1 files"), "\(text)")
        #expect(text.contains("run started: 2 files"), "\(text)")
    }
}
