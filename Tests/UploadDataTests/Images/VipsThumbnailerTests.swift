import Foundation
import Testing
import UploadDomain

@testable import UploadData

@Suite("VipsThumbnailer", .serialized)
struct VipsThumbnailerTests {
    /// Rows top to bottom: red, green / blue, white quadrants of 2×2 pixels each, in a 4×4 picture.
    static let quadrants: [UInt8] = {
        let red: [UInt8] = [255, 0, 0]
        let green: [UInt8] = [0, 255, 0]
        let blue: [UInt8] = [0, 0, 255]
        let white: [UInt8] = [255, 255, 255]
        let top = red + red + green + green
        let bottom = blue + blue + white + white
        return top + top + bottom + bottom
    }()

    func png(_ scratch: ImageScratch, _ name: String) throws -> String {
        let path = scratch.root + "/in/" + name
        let image = try #require(VipsImage.pixels(Self.quadrants, width: 4, height: 4))
        guard case .success = image.save(to: path, format: .png, quality: 90, strip: false) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: VipsLibrary.takeError(about: [path])])
        }
        return path
    }

    @Test("a 4×4 PNG of known colours comes back pixel for pixel, never enlarged")
    func knownPixels() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let path = try png(scratch, "quadrants.png")
        let picture = try #require(VipsThumbnailer.rgb(path: path, maxWidth: 24, maxHeight: 24))
        #expect(picture.width == 4 && picture.height == 4)
        #expect(picture.rgb == Self.quadrants)
    }

    @Test("shrunk to fit the box: each quadrant becomes one pixel of about its colour")
    func shrunk() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let path = try png(scratch, "quadrants.png")
        let picture = try #require(VipsThumbnailer.rgb(path: path, maxWidth: 2, maxHeight: 10))
        #expect(picture.width == 2 && picture.height == 2)
        let pixels = stride(from: 0, to: picture.rgb.count, by: 3).map { Array(picture.rgb[$0..<$0 + 3]) }
        let expected: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]]
        for (pixel, want) in zip(pixels, expected) {
            // The resampling kernel reaches into the neighbouring quadrant a little at this tiny size.
            #expect(zip(pixel, want).allSatisfy { abs(Int($0) - Int($1)) <= 40 }, "\(pixel) vs \(want)")
        }
    }

    @Test("a file that is no image, or none at all, gives nothing")
    func notAnImage() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        _ = try scratch.write(Array("just text, not pixels\n".utf8), to: "notes.jpg")
        #expect(VipsThumbnailer.rgb(path: scratch.root + "/in/notes.jpg", maxWidth: 24, maxHeight: 24) == nil)
        #expect(VipsThumbnailer.rgb(path: scratch.root + "/in/missing.png", maxWidth: 24, maxHeight: 24) == nil)
    }
}
