import Foundation
import Testing

@testable import ReferenceServer

/// The modeling step's format sniffing and dimension parsing, on generated headers.
@Suite("Image inspector")
struct ImageInspectorTests {
    private func inspect(_ data: Data) throws -> ImageReport {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("inspect-\(UUID().uuidString)")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try ImageInspector.inspect(path: url.path)
    }

    @Test("reads width and height from each supported format")
    func dimensions() throws {
        let width = Int.random(in: 1...16_000)
        let height = Int.random(in: 1...16_000)
        let cases: [(String, Data)] = [
            ("png", TestImages.png(width: width, height: height)),
            ("gif", TestImages.gif(width: width % 65_536, height: height % 65_536)),
            ("jpeg", TestImages.jpeg(width: width, height: height)),
            ("webp", TestImages.webpLossless(width: width, height: height)),
            ("webp", TestImages.webpExtended(width: width, height: height)),
            ("webp", TestImages.webpLossy(width: width, height: height)),
        ]
        for (signature, data) in cases {
            let report = try inspect(data)
            #expect(report.signature == signature)
            #expect(report.width == width)
            #expect(report.height == height)
            #expect(report.size == data.count)
        }
    }

    @Test("classifies HEIF brands and rejects other data", arguments: [
        ("heic", "heic"), ("heix", "heic"), ("mif1", "heif"), ("isom", nil), ("mp42", nil),
    ] as [(String, String?)])
    func heifBrands(brand: String, expected: String?) throws {
        let report = try inspect(TestImages.ftyp(brand: brand))
        #expect(report.signature == expected)
        #expect(report.width == nil)
    }

    @Test("unknown bytes have no signature and no size; truncated headers do not crash")
    func unknownAndTruncated() throws {
        let text = try inspect(Data("just some text, not an image".utf8))
        #expect(text.signature == nil)
        #expect(text.width == nil && text.height == nil)

        let truncatedJPEG = try inspect(Data([0xFF, 0xD8, 0xFF, 0xE1, 0x10]))
        #expect(truncatedJPEG.signature == "jpeg")
        #expect(truncatedJPEG.width == nil)

        let empty = try inspect(Data())
        #expect(empty.size == 0)
        #expect(empty.sha256 == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
