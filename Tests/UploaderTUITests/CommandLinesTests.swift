import Testing

@testable import UploaderTUI

@Suite("CommandLines")
struct CommandLinesTests {
    @Test("a curl command becomes a script: one option per line, quotes kept, continuations on all but the last")
    func split() {
        let command =
            "curl --fail-with-body -T '/tmp/my pets/a b.png' -H 'Content-Type: image/png' "
            + "-H \"Authorization: Bearer $UPLOADER_TOKEN\" -H 'Expect:' https://example.com/up/a%20b.png"
        #expect(
            CommandLines.split(command) == [
                "curl --fail-with-body \\",
                "  -T '/tmp/my pets/a b.png' \\",
                "  -H 'Content-Type: image/png' \\",
                "  -H \"Authorization: Bearer $UPLOADER_TOKEN\" \\",
                "  -H 'Expect:' \\",
                "  https://example.com/up/a%20b.png",
            ])
    }

    @Test("a trailing comment gets its own line after the command ends")
    func comment() {
        let lines = CommandLines.split(
            "curl -X POST -d '{\"a\": 1}' 'https://h/x'   # then, with the ticket: curl -T f")
        #expect(
            lines == [
                "curl \\", "  -X POST \\", "  -d '{\"a\": 1}' \\", "  'https://h/x'",
                "# then, with the ticket: curl -T f",
            ])
    }

    @Test("--globoff takes no value: it stays with curl's flags, and the path after -T keeps its line")
    func globoff() {
        #expect(
            CommandLines.split("curl --fail-with-body --globoff -T '/p/photo[1].jpg' 'http://h/x/photo%5B1%5D.jpg'")
                == [
                    "curl --fail-with-body --globoff \\", "  -T '/p/photo[1].jpg' \\",
                    "  'http://h/x/photo%5B1%5D.jpg'",
                ])
    }
}
