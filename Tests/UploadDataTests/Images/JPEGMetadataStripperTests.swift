import Foundation
import Testing
import UploadDomain

@testable import UploadData

@Suite("JPEGMetadataStripper")
struct JPEGMetadataStripperTests {
    /// A marker segment's bytes.
    static func segment(_ code: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [0xFF, code, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
    }

    /// Strips `bytes` written to a file in `scratch`; the copy's bytes and the orientation kept.
    static func strip(
        _ bytes: [UInt8], in scratch: ImageScratch
    ) throws -> (bytes: [UInt8], outcome: JPEGMetadataStripper.Outcome) {
        let input = try scratch.write(bytes, to: "input.jpg")
        let outputPath = scratch.root + "/output.jpg"
        let source = open(input.path, O_RDONLY)
        let destination = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer {
            close(source)
            close(destination)
        }
        let outcome = try JPEGMetadataStripper.strip(from: source, to: destination)
        return (try [UInt8](Data(contentsOf: URL(fileURLWithPath: outputPath))), outcome)
    }

    @Test("segments between scans: tables and scans kept, application segments and comments dropped, data stuffed")
    func progressiveLayout() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let jfif = Array("JFIF\0".utf8) + [1, 2, 0, 0, 1, 0, 1] + [1, 1, 0xAA, 0xBB, 0xCC]  // a 1x1 thumbnail
        let tables = Self.segment(0xDB, [0, 1]) + Self.segment(0xC0, [8, 0, 1, 0, 1, 1])
        let firstScan = Self.segment(0xDA, [9]) + [1, 2, 0xFF, 0x00, 3, 0xFF, 0xD0, 4]
        let secondScan = Self.segment(0xC4, [7]) + Self.segment(0xDA, [8]) + [5, 6]
        let original =
            [0xFF, 0xD8] + Self.segment(0xE0, jfif) + Self.segment(0xFE, Array("a comment".utf8)) + tables
            + firstScan + [0xFF, 0xFF] + Self.segment(0xE5, [1, 2, 3]) + Self.segment(0xFE, [4]) + secondScan
            + [0xFF, 0xD9] + Array("trailer with a secret".utf8)

        let stripped = try Self.strip(original, in: scratch)

        let expected: [UInt8] =
            [0xFF, 0xD8] + Self.segment(0xE0, Array(jfif.prefix(12)) + [0, 0]) + tables + firstScan + secondScan
            + [0xFF, 0xD9]
        #expect(stripped.bytes == expected)
        #expect(stripped.outcome == JPEGMetadataStripper.Outcome(orientation: 1, changed: true))
        let again = try Self.strip(expected, in: scratch)
        #expect(
            again.bytes == expected && again.outcome == JPEGMetadataStripper.Outcome(orientation: 1, changed: false))
    }

    @Test("what is not a whole JPEG is refused, for libvips to re-encode or reject")
    func notJPEG() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let whole = [0xFF, 0xD8] + Self.segment(0xDB, [0, 1]) + Self.segment(0xDA, [9]) + [1, 2] + [0xFF, 0xD9]
        for broken in [
            Array(whole.dropLast(2)),  // no end marker
            Array(whole.prefix(5)),  // a segment running past the end
            [0x89, 0x50, 0x4E, 0x47] + whole,  // not a JPEG at all
            [0xFF, 0xD8, 0xFF, 0xD9],  // an end before any scan
            [0xFF, 0xD8] + Self.segment(0xDB, [0, 1]) + [0x12] + Self.segment(0xDA, [9]) + [0xFF, 0xD9],  // junk
        ] {
            #expect(throws: JPEGMetadataStripper.Failure.self) { try Self.strip(broken, in: scratch) }
        }
    }

    @Test("the orientation is read in either byte order; out of range, missing or outside the block is none")
    func orientation() {
        func exif(little: Bool, orientation: Int, ifdOffset: UInt32 = 8, type: UInt16 = 3) -> [UInt8] {
            func u16(_ value: UInt16) -> [UInt8] {
                little ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            func u32(_ value: UInt32) -> [UInt8] {
                let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) }
                return little ? bytes.reversed() : bytes
            }
            let make = u16(0x010F) + u16(2) + u32(4) + Array("Cam\0".utf8)
            let entry = u16(0x0112) + u16(type) + u32(1) + u16(UInt16(orientation)) + [0, 0]
            return Array("Exif\0\0".utf8) + (little ? [0x49, 0x49] : [0x4D, 0x4D]) + u16(42) + u32(ifdOffset) + u16(2)
                + make + entry + u32(0)
        }
        for little in [true, false] {
            #expect(JPEGMetadataStripper.orientation(inEXIF: exif(little: little, orientation: 6)) == 6)
            #expect(JPEGMetadataStripper.orientation(inEXIF: exif(little: little, orientation: 9)) == nil)
            #expect(JPEGMetadataStripper.orientation(inEXIF: exif(little: little, orientation: 6, type: 4)) == nil)
            #expect(
                JPEGMetadataStripper.orientation(inEXIF: exif(little: little, orientation: 6, ifdOffset: 0xFFFF_FFF0))
                    == nil)
            #expect(
                JPEGMetadataStripper.orientation(inEXIF: Array(exif(little: little, orientation: 6).prefix(30)))
                    == nil)
        }
        #expect(JPEGMetadataStripper.orientation(inEXIF: Array("http://ns.adobe.com/xap/1.0/\0".utf8)) == nil)
        #expect(
            JPEGMetadataStripper.orientation(inEXIF: JPEGMetadataStripper.exif(orientation: 8)) == 8,
            "the block written for the copy reads back")
    }

    @Test("--strip-metadata alone copies a JPEG's compressed pixels as they are, without EXIF, GPS, XMP or comments")
    func preparerCopiesPixels() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let made = try scratch.image("made.jpg", width: 400, height: 300, format: .jpeg) { image in
            image.set("orientation", 6)
            image.set("exif-ifd0-Make", "TestCam")
            image.set("exif-ifd3-GPSLatitudeRef", "N")
            image.set("exif-ifd3-GPSLatitude", "51/1 30/1 0/1")
        }
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: made.path)))
        let icc = Array("ICC_PROFILE\0".utf8) + [1, 1] + Array(repeating: 0x42, count: 200)
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>GPSLatitude</x:xmpmeta>".utf8)
        let photo = try scratch.write(
            Array(bytes.prefix(2)) + Self.segment(0xE2, icc) + Self.segment(0xE1, xmp)
                + Self.segment(0xFE, Array("taken at home".utf8)) + Array(bytes.dropFirst(2))
                + Array("MPF trailer".utf8),
            to: "photo.jpg")
        #expect(await scratch.preparer.carriesLocation(photo))

        let prepared = try #require(
            try await scratch.preparer.prepare(photo, options: ImageOptions(stripMetadata: true)))

        let output = try [UInt8](Data(contentsOf: URL(fileURLWithPath: prepared.path)))
        let scan = try #require(bytes.firstRange(of: [0xFF, 0xDA]))
        #expect(output.suffix(bytes.count - scan.lowerBound) == bytes[scan.lowerBound...], "the same compressed pixels")
        #expect(output.firstRange(of: Self.segment(0xE2, icc)) != nil, "the colour profile is kept")
        #expect(output.firstRange(of: Self.segment(0xE1, JPEGMetadataStripper.exif(orientation: 6))) != nil)
        for gone in ["TestCam", "GPSLatitude", "taken at home", "MPF trailer"] {
            #expect(output.firstRange(of: Array(gone.utf8)) == nil, "\(gone)")
        }
        #expect((prepared.width, prepared.height) == (300, 400), "shown sideways, as its orientation says")
        #expect(prepared.size == Int64(output.count) && prepared.contentType == "image/jpeg")
        let header = try #require(VipsImage.header(path: prepared.path))
        #expect(!header.hasLocation && header.fieldNames(prefix: "xmp").isEmpty)
        #expect(header.fieldNames(prefix: "orientation") == ["orientation"])
        #expect(await scratch.preparer.carriesLocation(try scratch.item("photo.jpg")), "the original is untouched")

        let clean = try scratch.write(output, to: "clean.jpg")
        #expect(
            try await scratch.preparer.prepare(clean, options: ImageOptions(stripMetadata: true)) == nil,
            "nothing to strip: the original is sent")
        #expect(scratch.leftovers.count == 1)
    }

    @Test("a JPEG cut short is not copied: libvips re-encodes it or fails it, and no file is left")
    func truncatedFallsBack() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let whole = try scratch.image("whole.jpg", width: 600, height: 400, format: .jpeg)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: whole.path)))
        let cut = try scratch.write(Array(bytes.prefix(bytes.count / 2)), to: "cut.jpg")
        await #expect {
            try await scratch.preparer.prepare(cut, options: ImageOptions(stripMetadata: true))
        } throws: { error in
            (error as? UploadError)?.code == .imageUnreadable
        }
        #expect(scratch.leftovers.isEmpty)
    }
}
