import Foundation
import Testing
import UploadDomain

@testable import UploadData

/// What `prepareNow` makes of colours, pages and broken files, and the words it fails with.
@Suite("VipsImagePreparer+Work")
struct VipsImagePreparerWorkTests {
    /// The error `prepare` threw, or nil when it prepared (or passed) the file.
    func failure(_ scratch: ImageScratch, _ item: UploadItem, _ options: ImageOptions) async -> UploadError? {
        do {
            _ = try await scratch.preparer.prepare(item, options: options)
            return nil
        } catch {
            return error
        }
    }

    @Test("pure red, green and blue keep their values when shrunk and stripped: an image without a profile is sRGB")
    func saturatedColoursKept() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let bands: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255]]
        var rgb: [UInt8] = []
        for _ in 0..<100 {
            for x in 0..<300 { rgb += bands[x / 100] }
        }
        let flat = try scratch.pixels(rgb, width: 300, height: 100, as: "flat.png")
        let options = ImageOptions(maxDimension: 150, stripMetadata: true)
        let prepared = try #require(try await scratch.preparer.prepare(flat, options: options))
        let output = try #require(VipsThumbnailer.rgb(path: prepared.path, maxWidth: 150, maxHeight: 50))
        #expect((output.width, output.height) == (150, 50))
        for (band, colour) in bands.enumerated() {
            let offset = (25 * output.width + band * 50 + 25) * 3
            #expect(Array(output.rgb[offset..<(offset + 3)]) == colour, "band \(band)")
        }
    }

    @Test(
        "a TIFF whose pages differ in size fails under --max-dimension when one is larger, whichever page it is",
        arguments: [[(40, 40), (400, 300)], [(400, 300), (40, 40)]])
    func pagesOfDifferentSizes(sizes: [(Int, Int)]) async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let tiff = try scratch.write(tiffPages(sizes), to: "scan.tif")
        let error = await failure(scratch, tiff, ImageOptions(maxDimension: 100))
        #expect(error?.code == .imageNotPrepared, "\(String(describing: error))")
        #expect(error?.file == "scan.tif")
        #expect(
            error?.summary
                == "cannot shrink its 2 pages to --max-dimension 100: they differ in size (40x40 to 400x300), and "
                + "libvips writes a TIFF's pages at one size", "\(String(describing: error))")
        #expect(scratch.leftovers.isEmpty)
    }

    @Test("a TIFF whose pages differ in size but all fit --max-dimension is sent as it is")
    func pagesOfDifferentSizesFitting() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let tiff = try scratch.write(tiffPages([(40, 40), (90, 60)]), to: "scan.tif")
        #expect(try await scratch.preparer.prepare(tiff, options: ImageOptions(maxDimension: 100)) == nil)
    }

    @Test("a truncated animated GIF fails as unreadable instead of going out with a wrong frame")
    func truncatedGIF() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let colours: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255]]
        let rgb = colours.flatMap { colour in (0..<(64 * 64)).flatMap { _ in colour } }
        let whole = try scratch.pixels(rgb, width: 64, height: 192, as: "whole.gif") { $0.set("page-height", 64) }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: whole.path)))
        #expect(GIFTruncation.cut(in: bytes) == nil)
        // Only its trailer byte missing, every frame whole: as some encoders write them, and decoders take them.
        #expect(GIFTruncation.cut(in: Array(bytes.dropLast())) == nil)
        // The trailer, the last frame's terminator and three bytes of its pixels.
        let cut = try scratch.write(Array(bytes.dropLast(5)), to: "cut.gif")
        for options in [ImageOptions(maxDimension: 32), ImageOptions(stripMetadata: true)] {
            let error = await failure(scratch, cut, options)
            #expect(error?.code == .imageUnreadable, "\(String(describing: error))")
            #expect(error?.cause == "truncated GIF: the file ends inside frame 3", "\(String(describing: error))")
        }
        #expect(scratch.leftovers.isEmpty)
    }

    @Test("a truncated PNG rewritten as PNG fails with its decoder's words, not the encoder's 'unable to write'")
    func truncatedPNGSaysWhy() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let whole = try scratch.image("whole.png", width: 300, height: 200, format: .png)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: whole.path)))
        let cut = try scratch.write(Array(bytes.prefix(bytes.count / 2)), to: "cut.png")
        for options in [ImageOptions(stripMetadata: true), ImageOptions(maxDimension: 100)] {
            let error = await failure(scratch, cut, options)
            #expect(error?.code == .imageUnreadable)
            let cause = error?.cause ?? ""
            #expect(cause.contains("libpng read error") && !cause.contains("write"), "\(cause)")
        }
        #expect(scratch.leftovers.isEmpty)
    }

    @Test("a JPEG 20000 px wide converted to WebP fails naming WebP's limit, not as an image that cannot be decoded")
    func tooWideForWebP() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let wide = try scratch.image("wide.jpg", width: 20000, height: 200, format: .jpeg)
        let error = await failure(scratch, wide, ImageOptions(convert: .webp))
        #expect(error?.code == .imageNotPrepared)
        #expect(
            error?.description
                == "wide.jpg: cannot encode as WebP: a side of 20000 px, WebP allows at most 16383 (--max-dimension "
                + "16383 would shrink it)")
        #expect(scratch.leftovers.isEmpty)
    }
}

/// A little-endian TIFF of uncompressed 8-bit grey pages of `sizes` (width, height), each in one strip: libvips
/// writes the pages of one file at one size only.
func tiffPages(_ sizes: [(Int, Int)]) -> [UInt8] {
    func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
    func le32(_ value: Int) -> [UInt8] { le16(value & 0xFFFF) + le16(value >> 16) }
    /// One directory entry of one value: SHORT (3) or LONG (4).
    func entry(_ tag: Int, _ type: Int, _ value: Int) -> [UInt8] {
        le16(tag) + le16(type) + le32(1) + (type == 3 ? le16(value) + [0, 0] : le32(value))
    }
    var bytes: [UInt8] = Array("II".utf8) + le16(42) + le32(8)
    for (index, (width, height)) in sizes.enumerated() {
        let entries = 9
        let pixelsAt = bytes.count + 2 + entries * 12 + 4
        let next = index == sizes.count - 1 ? 0 : pixelsAt + width * height
        bytes += le16(entries)
        bytes += entry(256, 4, width) + entry(257, 4, height) + entry(258, 3, 8) + entry(259, 3, 1)  // no compression
        bytes += entry(262, 3, 1) + entry(273, 4, pixelsAt) + entry(277, 3, 1) + entry(278, 4, height)  // grey
        bytes += entry(279, 4, width * height) + le32(next)
        bytes += Array(repeating: 128, count: width * height)
    }
    return bytes
}
