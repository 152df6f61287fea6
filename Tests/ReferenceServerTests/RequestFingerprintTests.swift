import Foundation
import NIOCore
import Testing

@testable import ReferenceServer

/// Fingerprints of upload requests: equal for the same form whatever its boundary and chunking,
/// different for any change a client could make to what it uploads.
@Suite("RequestFingerprint")
struct RequestFingerprintTests {
    typealias Part = TestForm.Part

    static let photo = Part(
        name: "file", filename: "a/photo.jpg", contentType: "image/jpeg", content: Array(randomData(count: 70_000)))
    static let field = Part(name: "camera", filename: nil, contentType: nil, content: Array("north".utf8))

    /// Feeds the form to a receiver in chunks of `chunk` bytes and returns its fingerprint.
    static func fingerprint(
        _ parts: [Part], boundary: String, chunk: Int = 8_192, path: String = "/datasets/d/images",
        storesFiles: Bool = false
    ) throws -> RequestFingerprint {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fingerprint-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let receiver = MultipartReceiver(
            boundary: boundary, baseDirectory: directory.path, rootRelativeBase: "datasets/d", storesFiles: storesFiles)
        let bytes = TestForm(parts: parts).body(boundary: boundary)
        for start in stride(from: 0, to: bytes.count, by: chunk) {
            try receiver.consume(ByteBuffer(bytes: bytes[start..<min(start + chunk, bytes.count)]))
        }
        try receiver.finish()
        #expect(receiver.files.count == (storesFiles ? parts.filter { $0.filename != nil }.count : 0))
        return RequestFingerprint(method: "POST", path: path, parts: receiver.parts)
    }

    @Test("the boundary, the chunking and whether the files are stored do not change it")
    func boundaryIndependent() throws {
        let parts = [Self.photo, Self.field]
        let reference = try Self.fingerprint(parts, boundary: "------------------------a1b2c3")
        #expect(try Self.fingerprint(parts, boundary: "XyZ", chunk: 1_000) == reference)
        #expect(try Self.fingerprint(parts, boundary: "q", chunk: 100_000, storesFiles: true) == reference)
    }

    @Test("content, filename, field name, content type, field value, order and path all change it")
    func everyChangeCounts() throws {
        let reference = try Self.fingerprint([Self.photo, Self.field], boundary: "b")
        var content = Self.photo
        content.content[40_000] ^= 1
        var filename = Self.photo
        filename.filename = "a/photo2.jpg"
        var name = Self.photo
        name.name = "image"
        var type = Self.photo
        type.contentType = "image/png"
        var value = Self.field
        value.content = Array("south".utf8)
        let variants = [
            try Self.fingerprint([content, Self.field], boundary: "b"),
            try Self.fingerprint([filename, Self.field], boundary: "b"),
            try Self.fingerprint([name, Self.field], boundary: "b"),
            try Self.fingerprint([type, Self.field], boundary: "b"),
            try Self.fingerprint([Self.photo, value], boundary: "b"),
            try Self.fingerprint([Self.field, Self.photo], boundary: "b"),
            try Self.fingerprint([Self.photo], boundary: "b"),
            try Self.fingerprint([Self.photo, Self.field], boundary: "b", path: "/datasets/e/images"),
        ]
        #expect(!variants.contains(reference))
        #expect(Set(variants).count == variants.count)
    }

    @Test("raw bodies: method, path and body digest, with no item running into the next")
    func rawBodies() {
        let reference = RequestFingerprint(method: "PUT", path: "/files/a", bodySHA256: "ab")
        #expect(RequestFingerprint(method: "PUT", path: "/files/a", bodySHA256: "ab") == reference)
        #expect(RequestFingerprint(method: "PUT", path: "/files/a", bodySHA256: "ac") != reference)
        #expect(RequestFingerprint(method: "POST", path: "/files/a", bodySHA256: "ab") != reference)
        #expect(RequestFingerprint(method: "PUT", path: "/files/", bodySHA256: "aab") != reference)
        #expect(reference.hex.count == 64)
    }
}
