import Foundation
import Testing
import UploadDomain

@testable import UploadData

@Suite("VipsLibrary")
struct VipsLibraryTests {
    /// A copy of `whole` cut to its first half, as `name`.
    func cut(_ scratch: ImageScratch, _ whole: String, as name: String) throws -> UploadItem {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: whole)))
        return try scratch.write(Array(bytes.prefix(bytes.count / 2)), to: name)
    }

    @Test("a failure's message holds its own errors only: a truncated HEIC's, before it, stay out of a TIFF's")
    func messagesStayWithTheirFile() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let heic = scratch.root + "/whole.heic"
        let noise = try #require(VipsImage.noise(width: 300, height: 200))
        #expect(noise.saveHEIC(to: heic, quality: 50))
        let tiff = try scratch.image("whole.tif", width: 300, height: 200, format: .tiff)
        let options = ImageOptions(maxDimension: 100)
        var causes: [String] = []
        for item in [try cut(scratch, heic, as: "cut.heic"), try cut(scratch, tiff.path, as: "cut.tif")] {
            do {
                _ = try await scratch.preparer.prepare(item, options: options)
                Issue.record("prepared a truncated \(item.relativePath)")
            } catch {
                causes.append(error.cause ?? "")
            }
        }
        #expect(causes.count == 2)
        let tiffCause = causes.last ?? ""
        #expect(!tiffCause.contains("heif") && !tiffCause.contains("cut.heic"), "\(tiffCause)")
        #expect(!tiffCause.isEmpty && tiffCause != "unknown libvips error", "\(tiffCause)")
    }
}
