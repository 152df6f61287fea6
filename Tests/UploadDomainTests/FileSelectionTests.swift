import Testing

@testable import UploadDomain

@Suite("File selection: rclone's globs, ages and order")
struct FileSelectionTests {
    private func glob(_ pattern: String) throws -> GlobPattern { try GlobPattern(pattern) }

    @Test("an unanchored pattern matches whole trailing path elements; a leading / anchors at the top")
    func anchoring() throws {
        let jpg = try glob("*.jpg")
        #expect(jpg.matches("a.jpg") && jpg.matches("raw/2024/a.jpg"))
        #expect(!jpg.matches("a.jpeg") && !jpg.matches("a.jpg/notes.txt"))
        let raw = try glob("raw/*.jpg")
        #expect(raw.matches("raw/a.jpg") && raw.matches("2024/raw/a.jpg"))
        #expect(!raw.matches("draw/a.jpg") && !raw.matches("raw/x/a.jpg"))
        let top = try glob("/cover.jpg")
        #expect(top.matches("cover.jpg") && !top.matches("album/cover.jpg"))
    }

    @Test("* and ? stop at /, ** crosses folders, a/**/b also matches a/b")
    func wildcards() throws {
        #expect(try glob("IMG_????.jpg").matches("IMG_0042.jpg"))
        #expect(try !glob("IMG_????.jpg").matches("IMG_42.jpg"))
        #expect(try !glob("/a*c").matches("ab/c"))
        #expect(try glob("/a/**").matches("a/b/c/d.jpg"))
        let middle = try glob("/a/**/b.jpg")
        #expect(middle.matches("a/b.jpg") && middle.matches("a/x/y/b.jpg") && !middle.matches("ab.jpg"))
    }

    @Test("classes, negated classes, alternatives and escapes")
    func classesAndAlternatives() throws {
        let either = try glob("*.{jpg,png}")
        #expect(either.matches("a.jpg") && either.matches("b.png") && !either.matches("c.gif"))
        #expect(try glob("[a-c]*.jpg").matches("b1.jpg"))
        #expect(try !glob("[!a-c]*.jpg").matches("b1.jpg"))
        #expect(try glob("[^a-c]*.jpg").matches("d1.jpg"))
        #expect(try glob("\\*.jpg").matches("*.jpg"))
        #expect(try !glob("\\*.jpg").matches("a.jpg"))
        #expect(try glob("a+b (1).jpg").matches("a+b (1).jpg"), "regex characters are literal")
    }

    @Test("a pattern ending in / is a folder and all it holds, which the scan can skip")
    func folders() throws {
        let raw = try glob("raw/")
        #expect(raw.matches("raw/a.jpg") && raw.matches("x/raw/y/a.jpg"))
        #expect(raw.coversFolder("raw") && raw.coversFolder("2024/raw") && !raw.coversFolder("draw"))
        #expect(try glob("/cache/**").coversFolder("cache"))
        #expect(try !glob("/cache/**").coversFolder("x/cache"))
        #expect(try !glob("*.jpg").coversFolder("raw"))
    }

    @Test("patterns that cannot work are refused with the reason", arguments: ["", "[abc", "{a,b", "a\\"])
    func invalid(pattern: String) {
        #expect(throws: GlobPattern.Invalid.self) { try GlobPattern(pattern) }
    }

    @Test("an exclude wins over an include; no include means everything")
    func includeAndExclude() throws {
        let all = FileSelection(excludes: [try glob("*.tmp")])
        #expect(all.admits("a.jpg") && !all.admits("a.tmp"))
        let photos = FileSelection(includes: [try glob("*.jpg"), try glob("*.png")], excludes: [try glob("raw/")])
        #expect(photos.admits("a.jpg") && photos.admits("x/b.png"))
        #expect(!photos.admits("notes.txt") && !photos.admits("raw/a.jpg"))
        #expect(photos.prunes(folder: "raw") && !photos.prunes(folder: "edited"))
    }

    @Test("ages: --max-age keeps the recent, --min-age the old")
    func ages() {
        let now = 1_000_000.0
        let recent = FileSelection(maxAge: 3600)
        #expect(recent.admits(modified: now - 60, now: now) && !recent.admits(modified: now - 7200, now: now))
        let old = FileSelection(minAge: 3600)
        #expect(!old.admits(modified: now - 60, now: now) && old.admits(modified: now - 7200, now: now))
        #expect(!FileSelection().filtersByAge && recent.filtersByAge)
    }

    @Test("order by name, size or mtime, ascending or descending; ties keep their order")
    func order() {
        func item(_ id: Int, _ name: String, size: Int64, modified: Double) -> UploadItem {
            UploadItem(
                id: id, path: "/p/" + name, relativePath: name, size: size, modified: modified,
                contentType: "application/octet-stream")
        }
        let items = [
            item(0, "b", size: 5, modified: 3), item(1, "a", size: 9, modified: 1), item(2, "c", size: 5, modified: 2),
        ]
        func names(_ order: FileSelection.Order?) -> [String] {
            FileSelection(order: order).ordered(items).map(\.relativePath)
        }
        #expect(names(nil) == ["b", "a", "c"])
        #expect(names(.init(.name)) == ["a", "b", "c"])
        #expect(names(.init(.size)) == ["b", "c", "a"])
        #expect(names(.init(.size, descending: true)) == ["a", "b", "c"])
        #expect(names(.init(.mtime, descending: true)) == ["b", "c", "a"])
    }
}
