import Testing
import UploadDomain

@Suite("BatchRules")
struct BatchRulesTests {
    private func file(_ name: String, _ size: Int64, _ sniffed: String?, ext: String? = nil) -> BatchRules.File {
        BatchRules.File(name: name, size: size, sniffedType: sniffed, extensionType: ext)
    }

    private let bytes: (Int64) -> String = { "\($0) B" }

    @Test("nothing set allows everything")
    func noRules() {
        #expect(BatchRules().violations(of: [file("a", 10, nil)], formatBytes: bytes).isEmpty)
    }

    @Test("each broken rule is one line naming the option, the first three offending files and how many more")
    func violations() {
        var rules = BatchRules()
        rules.types = (["image/jpeg", "image/png"], "--types jpeg,png")
        rules.minFiles = 8
        rules.maxSize = (100, "--max-size 100")
        rules.maxTotal = (300, "--max-total 300")
        let files = [
            file("a.jpg", 50, "image/jpeg"), file("b.gif", 150, "image/gif"),
            file("c.txt", 120, nil, ext: "text/plain"),
            file("d.png", 101, "image/png"), file("e.jpg", 200, "image/jpeg"), file("f.jpg", 300, "image/jpeg"),
        ]
        let found = rules.violations(of: files, formatBytes: bytes).map(\.description)
        #expect(
            found == [
                "--types jpeg,png: 2 files are not of these types: b.gif (image/gif), c.txt (bytes of no known type, named as text/plain)",
                "--min-files 8: 6 files, at least 8 needed",
                "--max-size 100: 5 files are larger: b.gif (150 B), c.txt (120 B), d.png (101 B) and 2 more",
                "--max-total 300: 6 files make 921 B, at most 300 B",
            ])
    }

    @Test("limits are inclusive: exactly the maximum passes, one more breaks it")
    func boundaries() {
        var rules = BatchRules()
        rules.maxFiles = 2
        rules.maxSize = (10, "--max-size 10")
        rules.maxTotal = (20, "--max-total 20")
        rules.minFiles = 2
        #expect(rules.violations(of: [file("a", 10, nil), file("b", 10, nil)], formatBytes: bytes).isEmpty)
        let over = rules.violations(
            of: [file("a", 10, nil), file("b", 11, nil), file("c", 1, nil)], formatBytes: bytes)
        #expect(over.map(\.rule) == ["--max-files 2", "--max-size 10", "--max-total 20"])
        #expect(over[0].problem == "3 files, at most 2 allowed")
        #expect(over[1].problem == "1 file is larger: b (11 B)")
    }

    @Test("a name that disagrees with the bytes is a warning; unknown bytes or names are not")
    func mismatchedExtensions() {
        let warnings = BatchRules.mismatchedExtensions([
            file("cat.png", 1, "image/jpeg", ext: "image/png"), file("dog.jpg", 1, "image/jpeg", ext: "image/jpeg"),
            file("x.jpg", 1, nil, ext: "image/jpeg"), file("noext", 1, "image/png"),
        ])
        #expect(warnings == ["cat.png: the name says image/png, the bytes say image/jpeg"])
    }
}
