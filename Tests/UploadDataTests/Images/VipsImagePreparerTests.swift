import Foundation
import Testing
import UploadDomain

@testable import UploadData

@Suite("VipsImagePreparer")
struct VipsImagePreparerTests {
    @Test("a sideways 4000x3000 photo with GPS comes out 1200x1600, upright, without EXIF or GPS")
    func shrinksRotatesAndStrips() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let photo = try scratch.image("trip/photo.jpg", width: 4000, height: 3000, format: .jpeg) { image in
            image.set("orientation", 6)  // the camera was held sideways: shown rotated 90° clockwise
            image.set("exif-ifd0-Make", "TestCam")
            image.set("exif-ifd3-GPSLatitudeRef", "N")
            image.set("exif-ifd3-GPSLatitude", "51/1 30/1 0/1")
            image.set("exif-ifd3-GPSLongitudeRef", "W")
            image.set("exif-ifd3-GPSLongitude", "0/1 7/1 0/1")
        }
        #expect(await scratch.preparer.carriesLocation(photo))

        let options = ImageOptions(maxDimension: 1600, stripMetadata: true)
        let prepared = try #require(try await scratch.preparer.prepare(photo, options: options))

        #expect((prepared.width, prepared.height) == (1200, 1600))
        #expect(prepared.remoteName == "trip/photo.jpg")
        #expect(prepared.contentType == "image/jpeg")
        let attributes = try FileManager.default.attributesOfItem(atPath: prepared.path)
        #expect(prepared.size == (attributes[.size] as? Int64))
        let output = try #require(VipsImage.header(path: prepared.path))
        #expect((output.width, output.height) == (1200, 1600))
        #expect(output.fieldNames(prefix: "exif-").isEmpty)
        #expect(output.fieldNames(prefix: "orientation").isEmpty)
        #expect(!output.hasLocation)
        let copy = try scratch.item("trip/photo.jpg")
        #expect(copy == photo, "the original is untouched")
        #expect(await scratch.preparer.carriesLocation(photo))
    }

    @Test("the temporary folder is private")
    func folderIsPrivate() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let png = try scratch.image("a.png", width: 64, height: 48, format: .png)
        _ = try await scratch.preparer.prepare(png, options: ImageOptions(convert: .jpeg))
        let folder = try #require(scratch.preparer.folder.existingPath)
        let mode = try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int
        #expect(mode == 0o700)
    }

    @Test("a shrunk PNG gradient comes out small: every row filter is tried, as Pillow does")
    func pngRowFilters() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        // Deflate finds little to repeat in a gradient's raw bytes; the row filters turn it into runs. Unfiltered,
        // libvips wrote this 500x333 shrink in 209 KB (Pillow's 1200x800 original is 30 KB), filtered in 12 KB.
        let gradient = try scratch.write(pngGradient(width: 1200, height: 800), to: "g.png")
        let options = ImageOptions(maxDimension: 500)
        let prepared = try #require(try await scratch.preparer.prepare(gradient, options: options))
        #expect((prepared.width, prepared.height) == (500, 333))
        #expect(prepared.size < 50_000, "\(prepared.size) bytes")
    }

    @Test("a PNG converted to JPEG takes the .jpg name and decodes as a JPEG")
    func convertsPNGToJPEG() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let png = try scratch.image("pics/diagram.png", width: 300, height: 200, format: .png)
        let prepared = try #require(try await scratch.preparer.prepare(png, options: ImageOptions(convert: .jpeg)))
        #expect(prepared.remoteName == "pics/diagram.jpg")
        #expect(prepared.contentType == "image/jpeg")
        #expect((prepared.width, prepared.height) == (300, 200))
        let output = try #require(VipsImage.header(path: prepared.path))
        #expect(output.loader == "jpegload")
        // Decoding every pixel: writing it out again fails on a broken file.
        #expect(throws: Never.self) {
            try output.save(to: scratch.root + "/decoded.png", format: .png, quality: 80, strip: false).get()
        }
    }

    @Test("a JPEG encoded for the smallest size has the same pixels in fewer bytes than one encoded for speed")
    func smallestEncodingKeepsThePixels() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let photo = try scratch.image("photo.png", width: 800, height: 600, format: .png)
        let options = ImageOptions(convert: .jpeg, quality: 80)
        let fastest = try #require(try await scratch.preparer.prepare(photo, options: options, encoding: .fastest))
        let smallest = try #require(try await scratch.preparer.prepare(photo, options: options, encoding: .smallest))
        #expect(smallest.size < fastest.size)
        // Only the entropy coding differs: both decode to the same pixels, so their lossless copies are the same bytes.
        var decoded: [Data] = []
        for (index, prepared) in [fastest, smallest].enumerated() {
            let image = try #require(VipsImage.header(path: prepared.path))
            let path = scratch.root + "/decoded-\(index).png"
            try image.save(to: path, format: .png, quality: 80, strip: true).get()
            decoded.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        #expect(decoded[0] == decoded[1])
    }

    @Test("a lower quality gives fewer bytes", arguments: [ImageOptions.Format.jpeg, .webp])
    func qualityChangesSize(format: ImageOptions.Format) async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let photo = try scratch.image("photo.png", width: 800, height: 600, format: .png)
        let high = try #require(try await scratch.preparer.prepare(photo, options: .init(convert: format, quality: 90)))
        let low = try #require(try await scratch.preparer.prepare(photo, options: .init(convert: format, quality: 30)))
        #expect(low.size < high.size)
        #expect(high.path != low.path)
        #expect(low.contentType == format.contentType)
    }

    @Test("WebP output keeps no EXIF, GPS or profile when stripped (libvips 8.14's webpsave ignores strip)")
    func stripsWebP() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let photo = try scratch.image("photo.jpg", width: 400, height: 300, format: .jpeg) { image in
            image.set("exif-ifd3-GPSLatitudeRef", "N")
            image.set("exif-ifd3-GPSLatitude", "51/1 30/1 0/1")
        }
        let options = ImageOptions(convert: .webp, stripMetadata: true)
        let prepared = try #require(try await scratch.preparer.prepare(photo, options: options))
        #expect(prepared.remoteName == "photo.webp")
        let output = try #require(VipsImage.header(path: prepared.path))
        #expect(output.loader == "webpload")
        #expect(output.fieldNames(prefix: "exif-").isEmpty)
        #expect(output.fieldNames(prefix: "icc-profile-data").isEmpty)
        #expect((output.width, output.height) == (400, 300))
    }

    @Test("a truncated JPEG fails as unreadable and leaves no file")
    func truncatedJPEG() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let whole = try scratch.image("whole.jpg", width: 1000, height: 800, format: .jpeg)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: whole.path)))
        let cut = try scratch.write(Array(bytes.prefix(bytes.count / 2)), to: "cut.jpg")
        await #expect {
            try await scratch.preparer.prepare(cut, options: ImageOptions(maxDimension: 500))
        } throws: { error in
            (error as? UploadError)?.code == .imageUnreadable && (error as? UploadError)?.file == "cut.jpg"
        }
        #expect(scratch.leftovers.isEmpty)
    }

    @Test("a failed image's reason is its own: not another file's leftover messages, and no absolute path")
    func reasonIsItsOwn() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let whole = try scratch.image("whole.jpg", width: 1000, height: 800, format: .jpeg)
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: whole.path)))
        let cut = try scratch.write(Array(bytes.prefix(bytes.count / 2)), to: "b_broken.jpg")
        // Another file's load leaves its messages in libvips' process-wide buffer, and nobody takes them.
        let other = try scratch.write(Array("not an image at all".utf8), to: "a_photo.avif")
        #expect(VipsImage.header(path: other.path) == nil)
        do {
            _ = try await scratch.preparer.prepare(cut, options: ImageOptions(maxDimension: 500))
            Issue.record("prepared a truncated JPEG")
        } catch {
            #expect(error.file == "b_broken.jpg")
            let cause = try #require(error.cause)
            #expect(!cause.contains("a_photo") && !cause.contains("/"), "\(cause)")
            #expect(!cause.isEmpty && cause != "unknown libvips error", "\(cause)")
        }
    }

    @Test("a text file named .jpg fails as unreadable, with libvips' reason on one line, and leaves no file")
    func textNamedJPG() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let text = try scratch.write(Array("just some notes\n".utf8), to: "notes/fake.jpg")
        #expect(text.sniffedType == nil)
        do {
            _ = try await scratch.preparer.prepare(text, options: ImageOptions(stripMetadata: true))
            Issue.record("prepared a text file")
        } catch {
            #expect(error.code == .imageUnreadable)
            #expect(error.file == "notes/fake.jpg")
            let cause = try #require(error.cause)
            #expect(!cause.contains("\n") && !cause.isEmpty)
            #expect(!cause.contains(scratch.root), "names the file by its relative path: \(cause)")
        }
        #expect(scratch.leftovers.isEmpty)
    }

    @Test("a PNG declaring 50000x50000 pixels is refused from its header, before decoding")
    func refusesTooManyPixels() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        // Its pixel data is garbage: decoding would fail as unreadable, not as too large.
        let huge = try scratch.write(pngDeclaring(width: 50000, height: 50000), to: "huge.png")
        #expect(huge.sniffedType == "image/png")
        do {
            _ = try await scratch.preparer.prepare(huge, options: ImageOptions(maxDimension: 1600))
            Issue.record("prepared a 2.5-gigapixel image")
        } catch {
            #expect(
                error
                    == UploadError(
                        .imageTooLarge, file: "huge.png", cause: "50000x50000 pixels, more than --max-pixels 100000000")
            )
        }
        #expect(scratch.leftovers.isEmpty)
        // Under a larger limit the same file gets as far as decoding, and fails there.
        await #expect {
            try await scratch.preparer.prepare(
                huge, options: ImageOptions(maxDimension: 1600, maxPixels: 3_000_000_000))
        } throws: { ($0 as? UploadError)?.code == .imageUnreadable }
    }

    @Test("options that change nothing, other files and images already fitting are sent as they are")
    func sendsAsIs() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let photo = try scratch.image("photo.jpg", width: 640, height: 480, format: .jpeg)
        #expect(try await scratch.preparer.prepare(photo, options: ImageOptions()) == nil)
        #expect(try await scratch.preparer.prepare(photo, options: ImageOptions(maxDimension: 640)) == nil)
        let notes = try scratch.write(Array("hello".utf8), to: "notes.txt")
        #expect(try await scratch.preparer.prepare(notes, options: ImageOptions(stripMetadata: true)) == nil)
        #expect(scratch.leftovers.isEmpty)
        let smaller = try #require(try await scratch.preparer.prepare(photo, options: ImageOptions(maxDimension: 320)))
        #expect((smaller.width, smaller.height) == (320, 240))
    }

    @Test("a file gone since the scan fails as unreadable file, not image")
    func vanishedFile() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let photo = try scratch.image("photo.jpg", width: 64, height: 64, format: .jpeg)
        try FileManager.default.removeItem(atPath: photo.path)
        await #expect {
            try await scratch.preparer.prepare(photo, options: ImageOptions(stripMetadata: true))
        } throws: { ($0 as? UploadError)?.code == .fileUnreadable }
    }

    @Test("discard removes the prepared file, only inside the folder; removeTemporaryFolder removes the folder")
    func discardAndRemoveFolder() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let photo = try scratch.image("photo.png", width: 64, height: 64, format: .png)
        let first = try #require(try await scratch.preparer.prepare(photo, options: ImageOptions(convert: .webp)))
        let second = try #require(try await scratch.preparer.prepare(photo, options: ImageOptions(convert: .jpeg)))
        #expect(FileManager.default.fileExists(atPath: first.path))
        scratch.preparer.discard(first)
        #expect(!FileManager.default.fileExists(atPath: first.path))
        #expect(FileManager.default.fileExists(atPath: second.path))

        var outside = second
        outside.path = photo.path
        scratch.preparer.discard(outside)
        #expect(FileManager.default.fileExists(atPath: photo.path), "never removes a file outside the folder")

        let folder = try #require(scratch.preparer.folder.existingPath)
        scratch.preparer.removeTemporaryFolder()
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test("an image without a GPS position does not carry a location; a non-image never does")
    func noLocation() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let photo = try scratch.image("photo.jpg", width: 64, height: 64, format: .jpeg) {
            $0.set("exif-ifd0-Make", "X")
        }
        #expect(!(await scratch.preparer.carriesLocation(photo)))
        let notes = try scratch.write(Array("GPSLatitude".utf8), to: "notes.txt")
        #expect(!(await scratch.preparer.carriesLocation(notes)))
    }
}
