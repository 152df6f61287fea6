import Foundation
import Testing
import UploadDomain

@testable import UploadData

/// The scanner on real folders: what is uploaded, in which order, and what is said about the rest.
@Suite("FileScanner")
struct FileScannerTests {
    /// A temporary folder with `files` (relative path: bytes), removed after `body`.
    private func withFolder<T>(_ files: [String: [UInt8]], _ body: (String) throws -> T) throws -> T {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("scanner-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (relative, bytes) in files {
            let path = root + "/" + relative
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        return try body(root)
    }

    private let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]

    @Test("a folder named twice is walked once: its entries left out are said once")
    func folderNamedTwice() throws {
        try withFolder(["a.txt": Array("a".utf8), "sub/c.jpg": [0xFF, 0xD8, 0xFF, 1]]) { root in
            let scan = try FileScanner(listsLeftOut: true).scan([root, root + "/", root + "/."])
            #expect(scan.items.map(\.relativePath) == ["a.txt"])
            #expect(scan.notes == ["sub/: folder not uploaded (use --recursive)"])
            #expect(scan.leftOut == [LeftOutEntry(path: "sub/", reason: "folder not uploaded (use --recursive)")])
        }
    }

    @Test("a folder's files in name order, with size, mtime and type; subfolders only with recursive")
    func folderOrderAndDetails() throws {
        try withFolder(["b.bin": png, "a.txt": Array("hello".utf8), "sub/c.jpg": [0xFF, 0xD8, 0xFF, 1]]) { root in
            let flat = try FileScanner().scan([root])
            #expect(flat.items.map(\.relativePath) == ["a.txt", "b.bin"])
            #expect(flat.items.map(\.id) == [0, 1])
            #expect(flat.notes == ["sub/: folder not uploaded (use --recursive)"])
            #expect(flat.leftOut == [LeftOutEntry(path: "sub/", reason: "folder not uploaded (use --recursive)")])
            let text = flat.items[0]
            #expect(text.path == root + "/a.txt")
            #expect(text.size == 5)
            #expect(text.contentType == "text/plain")
            #expect(flat.items[1].contentType == "image/png")
            var info = stat()
            #expect(stat(text.path, &info) == 0)
            #expect(text.modified == Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9)
            #expect(text.unreadableReason == nil)

            let deep = try FileScanner(recursive: true).scan([root])
            #expect(deep.items.map(\.relativePath) == ["a.txt", "b.bin", "sub/c.jpg"])
            #expect(deep.items[2].contentType == "image/jpeg")
            #expect(deep.notes.isEmpty)
            #expect(deep.leftOut.isEmpty)
        }
    }

    @Test("a folder of many files, probed on several threads, keeps name order, sizes, types and links in place")
    func manyFilesInParallel() throws {
        let count = FileScanner.parallelProbes * 3 + 7
        var files: [String: [UInt8]] = [:]
        for index in 0..<count {
            let name = String(format: "f%04d", index) + (index % 3 == 0 ? ".png" : ".txt")
            files[name] = index % 3 == 0 ? png : Array(repeating: UInt8(index % 251), count: index)
        }
        files["sub/inner.txt"] = Array("x".utf8)
        try withFolder(files) { root in
            symlink("/etc/hostname", root + "/f0100.link")
            let result = try FileScanner(recursive: true).scan([root])
            let expected = (files.keys.map { $0 } + ["f0100.link"]).sorted()
            #expect(result.items.map(\.relativePath) == expected)
            #expect(result.items.map(\.id) == Array(0..<expected.count))
            for item in result.items where item.relativePath.hasPrefix("f") && !item.relativePath.hasSuffix(".link") {
                let bytes = try #require(files[item.relativePath])
                #expect(item.size == Int64(bytes.count), "\(item.relativePath)")
                let type = item.relativePath.hasSuffix(".png") ? "image/png" : "text/plain"
                #expect(item.contentType == type && item.unreadableReason == nil, "\(item.relativePath)")
            }
            let link = try #require(result.items.first { $0.relativePath == "f0100.link" })
            #expect(link.skipReason?.contains("/etc/hostname") == true)
        }
    }

    @Test("hidden entries only when asked; a file argument is named by itself; repeats count once")
    func hiddenFilesAndArguments() throws {
        try withFolder([".secret": [1], "x.dat": [2, 3], ".cache/y.dat": [4]]) { root in
            let plain = try FileScanner(recursive: true).scan([root])
            #expect(plain.items.map(\.relativePath) == ["x.dat"])
            #expect(plain.notes == ["2 hidden (dot) entries left out (--hidden sends them)"])
            // A hidden folder is one entry: what it holds is not listed.
            #expect(
                plain.leftOut
                    == [".cache/", ".secret"].map { LeftOutEntry(path: $0, reason: "hidden (--hidden sends it)") })
            // Without the list (no --json), the same note and nothing more.
            let counted = try FileScanner(recursive: true, listsLeftOut: false).scan([root])
            #expect(counted.notes == plain.notes && counted.leftOut.isEmpty)
            let hidden = try FileScanner(recursive: true, includeHidden: true).scan([root])
            #expect(hidden.items.map(\.relativePath) == [".cache/y.dat", ".secret", "x.dat"])
            #expect(hidden.notes.isEmpty)
            #expect(hidden.leftOut.isEmpty)
            let files = try FileScanner().scan([root + "/x.dat", root, root + "/./x.dat"])
            #expect(files.items.map(\.relativePath) == ["x.dat"])
            #expect(files.items[0].size == 2)
        }
    }

    @Test("links are not followed: each is an item skipped with its target named; a FIFO is noted, not read")
    func linksSkippedByDefault() throws {
        try withFolder(["real/f.bin": [9, 9, 9]]) { root in
            let manager = FileManager.default
            try manager.createSymbolicLink(atPath: root + "/link.bin", withDestinationPath: root + "/real/f.bin")
            try manager.createSymbolicLink(atPath: root + "/key", withDestinationPath: "/etc/passwd")
            try manager.createSymbolicLink(atPath: root + "/gone.bin", withDestinationPath: "/nonexistent/x")
            try manager.createSymbolicLink(atPath: root + "/real/up", withDestinationPath: root)
            #expect(mkfifo(root + "/pipe", 0o600) == 0)
            let scan = try FileScanner(recursive: true).scan([root])
            #expect(scan.items.map(\.relativePath) == ["gone.bin", "key", "link.bin", "real/f.bin", "real/up"])
            #expect(scan.items[1].skipReason == "symbolic link to /etc/passwd, not followed (-L follows links)")
            #expect(scan.items[1].size == 0)
            #expect(scan.items[0].skipReason == "symbolic link to /nonexistent/x, not followed (-L follows links)")
            #expect(scan.items[4].skipReason == "symbolic link to \(root), not followed (-L follows links)")
            #expect(scan.items[3].skipReason == nil)
            #expect(scan.items[3].size == 3)
            #expect(scan.notes == ["pipe: not a regular file, not uploaded"])
            #expect(scan.leftOut == [LeftOutEntry(path: "pipe", reason: "not a regular file (named pipe)")])
        }
    }

    @Test("-L follows links, walks a looping folder once, fails a dangling one by name and counts targets outside")
    func linksFollowed() throws {
        try withFolder(["real/f.bin": [9, 9, 9]]) { root in
            let outside = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: outside) }
            try Data([1, 2]).write(to: outside.appendingPathComponent("secret.txt"))
            let manager = FileManager.default
            try manager.createSymbolicLink(atPath: root + "/link.bin", withDestinationPath: root + "/real/f.bin")
            try manager.createSymbolicLink(atPath: root + "/gone.bin", withDestinationPath: "/nonexistent/x")
            try manager.createSymbolicLink(atPath: root + "/real/up", withDestinationPath: root)
            try manager.createSymbolicLink(atPath: root + "/out.txt", withDestinationPath: outside.path + "/secret.txt")
            try manager.createSymbolicLink(atPath: root + "/outdir", withDestinationPath: outside.path)
            let scan = try FileScanner(recursive: true, followSymlinks: true).scan([root])
            #expect(
                scan.items.map(\.relativePath) == [
                    "gone.bin", "link.bin", "out.txt", "outdir/secret.txt", "real/f.bin",
                ])
            #expect(scan.items[0].unreadableReason == "No such file or directory")
            #expect(scan.items[1].size == 3)
            #expect(scan.items.allSatisfy { $0.skipReason == nil })
            #expect(scan.notes.contains { $0.hasSuffix("real/up: folder loop through a link, not walked again") })
            #expect(scan.notes.contains("2 followed links point outside the folders given (-L)"))
            #expect(scan.notes.count == 2)
            #expect(
                scan.leftOut == [LeftOutEntry(path: "real/up/", reason: "folder loop through a link, not walked again")]
            )
        }
    }

    @Test("files left out by name and age, and excluded folders, are each an entry with the reason")
    func selectionLeavesOut() throws {
        try withFolder(["a.jpg": [1], "b.txt": [2], "old.jpg": [3], "raw/r.jpg": [4], "keep/c.jpg": [5]]) { root in
            var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, root + "/old.jpg", &times, 0) == 0)
            let selection = FileSelection(
                includes: [try GlobPattern("*.jpg")], excludes: [try GlobPattern("raw/")], maxAge: 86_400)
            let scan = try FileScanner(recursive: true, selection: selection).scan([root])
            #expect(scan.items.map(\.relativePath) == ["a.jpg", "keep/c.jpg"])
            #expect(
                scan.leftOut == [
                    LeftOutEntry(path: "b.txt", reason: "left out by --include/--exclude"),
                    LeftOutEntry(path: "raw/", reason: "left out by --exclude"),
                    LeftOutEntry(path: "old.jpg", reason: "left out by --max-age/--min-age"),
                ])
        }
    }

    @Test("a missing argument or a device is a usage error naming it")
    func badArguments() throws {
        try withFolder([:]) { root in
            #expect(throws: FileScanner.ScanError.self) { try FileScanner().scan([root + "/missing"]) }
            let error = #expect(throws: FileScanner.ScanError.self) { try FileScanner().scan(["/dev/null"]) }
            #expect(error?.description == "/dev/null: not a regular file or folder")
            // An unset variable ("$DIR") must not send the current folder.
            let empty = #expect(throws: FileScanner.ScanError.self) { try FileScanner().scan([""]) }
            #expect(empty?.description == "'': an empty path names no file")
        }
    }

    @Test("a path given whose bytes were not UTF-8 (replaced on the way in) is said to be so, not just missing")
    func argumentNotUTF8() throws {
        #expect {
            try FileScanner().scan(["/tmp/caf\u{FFFD}-missing.txt"])
        } throws: { error in
            (error as? FileScanner.ScanError)?.reason.contains("not valid UTF-8") == true
        }
    }

    @Test("names that are not valid UTF-8 fail each with that cause, their bytes escaped, sized; the rest go on")
    func nameNotUTF8() throws {
        try withFolder(["ok.jpg": [1]]) { root in
            for byte: UInt8 in [0xE9, 0xF0] {
                let bytes = Array((root + "/caf").utf8) + [byte] + Array(".jpg".utf8) + [0]
                let descriptor = bytes.withUnsafeBufferPointer {
                    $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
                }
                #expect(descriptor >= 0)
                #expect(write(descriptor, "abc", 3) == 3)
                close(descriptor)
            }
            // A file named by the escaped spelling, and a folder whose name is not UTF-8.
            FileManager.default.createFile(atPath: root + "/caf\\xE9.jpg", contents: Data("abcd".utf8))
            let folder = Array((root + "/d").utf8) + [0xE9, 0]
            #expect(
                folder.withUnsafeBufferPointer {
                    $0.withMemoryRebound(to: CChar.self) { mkdir($0.baseAddress!, 0o755) }
                } == 0)
            let scan = try FileScanner(recursive: true).scan([root])
            #expect(
                scan.items.map(\.relativePath) == ["caf\\xE9.jpg", "caf\\xE9.jpg", "caf\\xF0.jpg", "d\\xE9/", "ok.jpg"])
            #expect(scan.items.map(\.size).sorted() == [0, 1, 3, 3, 4])
            #expect(
                scan.items.filter { $0.unreadableReason == "name is not valid UTF-8; rename it to send it" }.count == 2)
            #expect(scan.items[3].isFolder)
            #expect(scan.items[3].unreadableReason == "name is not valid UTF-8; rename it to send what it holds")
        }
    }
}
