import Foundation
import Testing

@testable import ReferenceServer

/// Sanitising and confinement of client-supplied names.
@Suite("Storage paths")
struct StoragePathTests {
    private let base = "/srv/root/datasets/d"

    private func components(_ raw: String) throws -> [String] {
        try StoragePath(sanitising: raw, baseDirectory: base, rootRelativeBase: "datasets/d").components
    }

    @Test("dot, dot-dot and empty components are dropped", arguments: [
        ("../../etc/passwd", ["etc", "passwd"]),
        ("a/../../b", ["a", "b"]),
        ("/abs/path.jpg", ["abs", "path.jpg"]),
        ("./x//y/./z.png", ["x", "y", "z.png"]),
        ("sub/cat.jpg", ["sub", "cat.jpg"]),
    ])
    func dropsTraversal(raw: String, expected: [String]) throws {
        #expect(try components(raw) == expected)
    }

    @Test("control characters, NUL and backslashes become underscores")
    func replacesDangerousCharacters() throws {
        #expect(try components("a\u{0}b\nc\td\u{7F}e.txt") == ["a_b_c_d_e.txt"])
        #expect(try components("..\\..\\win.ini") == [".._.._win.ini"])
        // libcurl's escapes arrive as literal text and are kept, not decoded.
        #expect(try components("quote%22name%0D%0A.jpg") == ["quote%22name%0D%0A.jpg"])
        #expect(try components("ünïcødé/名前.png") == ["ünïcødé", "名前.png"])
    }

    @Test("names with nothing usable are rejected")
    func rejectsEmpty() throws {
        for raw in ["", "/", "..", "../..", "./."] {
            #expect(throws: ReferenceServerError.self) { try components(raw) }
            #expect(!StoragePath.hasUsableComponents(raw))
        }
        #expect(throws: ReferenceServerError.self) { try StoragePath.sanitiseIdentifier("..") }
        #expect(try StoragePath.sanitiseIdentifier("../x") == ".._x")
    }

    @Test("over-long components are rejected")
    func rejectsLongComponents() throws {
        #expect(throws: ReferenceServerError.self) { try components(String(repeating: "a", count: 256)) }
        #expect(try components(String(repeating: "a", count: 255)).count == 1)
    }

    @Test("paths are reported relative to the root")
    func rootRelativePath() throws {
        let path = try StoragePath(sanitising: "../sub/cat.jpg", baseDirectory: base, rootRelativeBase: "datasets/d")
        #expect(path.rootRelativePath == "datasets/d/sub/cat.jpg")
        #expect(path.absolutePath == base + "/sub/cat.jpg")
    }

    @Test("a symlink inside the dataset folder cannot lead outside it")
    func symlinkEscapeIsRefused() throws {
        let sandbox = FileManager.default.temporaryDirectory.appendingPathComponent("symlink-\(UUID().uuidString)")
        let dataset = sandbox.appendingPathComponent("root/datasets/d")
        let outside = sandbox.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: dataset, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: sandbox) }
        try FileManager.default.createSymbolicLink(
            at: dataset.appendingPathComponent("link"), withDestinationURL: outside)

        let escaping = try StoragePath(sanitising: "link/x.txt", baseDirectory: dataset.path, rootRelativeBase: "datasets/d")
        let inside = try StoragePath(sanitising: "real/x.txt", baseDirectory: dataset.path, rootRelativeBase: "datasets/d")

        #expect(throws: ReferenceServerError.self) { try escaping.prepareParentDirectory() }
        #expect(try inside.prepareParentDirectory().hasSuffix("/root/datasets/d/real/x.txt"))
    }
}
