import CVips

/// One libvips image (a `VipsImage`); the reference is released when this goes. Used from one thread at a time.
final class VipsImage {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        cvips_release(pointer)
    }

    /// Opens `path` reading only its header; nil on failure (the reason is in `VipsLibrary.takeError(about:)`).
    static func header(path: String) -> VipsImage? {
        cvips_open(path).map(VipsImage.init)
    }

    /// `path` shrunk while decoding to fit `maxSide`×`maxSide` (never enlarged) and turned upright; `header` is the
    /// same file opened by `header(path:)`.
    static func thumbnail(path: String, header: VipsImage, maxSide: Int, toSRGB: Bool) -> VipsImage? {
        cvips_thumbnail(path, header.pointer, Int32(clamping: maxSide), toSRGB ? 1 : 0).map(VipsImage.init)
    }

    /// `path` at full size, turned upright; `header` is the same file opened by `header(path:)`.
    static func upright(path: String, header: VipsImage, toSRGB: Bool) -> VipsImage? {
        cvips_upright(path, header.pointer, toSRGB ? 1 : 0).map(VipsImage.init)
    }

    /// Every page of `path` (an animated GIF or WebP, a multi-page TIFF) stacked, each shrunk to fit
    /// `maxSide`×`maxSide` when given (never enlarged); saved as GIF, WebP or TIFF, the pages are written again.
    static func allPages(path: String, header: VipsImage, maxSide: Int?, toSRGB: Bool) -> VipsImage? {
        cvips_all_pages(path, header.pointer, Int32(clamping: maxSide ?? 0), toSRGB ? 1 : 0).map(VipsImage.init)
    }

    /// The size of each of the first `pages` pages of `path`, from their headers (a TIFF's pages may differ in size);
    /// nil on failure.
    static func pageSizes(path: String, pages: Int) -> [(width: Int, height: Int)]? {
        var sizes: [(width: Int, height: Int)] = []
        for page in 0..<pages {
            var width: Int32 = 0
            var height: Int32 = 0
            guard cvips_page_size(path, Int32(page), &width, &height) == 0 else { return nil }
            sizes.append((Int(width), Int(height)))
        }
        return sizes
    }

    /// A `width`×`height` sRGB image of noise, for tests.
    static func noise(width: Int, height: Int) -> VipsImage? {
        cvips_noise(Int32(width), Int32(height)).map(VipsImage.init)
    }

    /// A `width`×`height` sRGB image of `rgb` (3 bytes a pixel, rows top to bottom), for tests.
    static func pixels(_ rgb: [UInt8], width: Int, height: Int) -> VipsImage? {
        guard rgb.count == width * height * 3 else { return nil }
        return cvips_from_rgb(rgb, Int32(width), Int32(height)).map(VipsImage.init)
    }

    var width: Int { Int(cvips_width(pointer)) }
    var height: Int { Int(cvips_height(pointer)) }
    /// Frames or pages in the file: more than 1 for an animated GIF or WebP, a multi-page TIFF.
    var pages: Int { Int(cvips_pages(pointer)) }
    /// One page's height: `height` divided by the pages stacked in it.
    var pageHeight: Int { Int(cvips_page_height(pointer)) }
    /// The loader libvips picked ("jpegload", "heifload", …).
    var loader: String? { cvips_loader(pointer).map { String(cString: $0) } }
    /// True when the metadata holds a GPS position.
    var hasLocation: Bool { cvips_has_location(pointer) != 0 }

    /// The metadata field names that start with `prefix` ("exif-", "icc-profile-data", …).
    func fieldNames(prefix: String = "") -> [String] {
        guard let names = cvips_field_names(pointer, prefix) else { return [] }
        defer { cvips_free_string(names) }
        return String(cString: names).split(separator: "\n").map(String.init)
    }

    /// Sets a text metadata field (savers write "exif-ifdN-Name" fields into the EXIF block).
    func set(_ name: String, _ value: String) {
        cvips_set_string(pointer, name, value)
    }

    /// Sets an integer metadata field ("orientation").
    func set(_ name: String, _ value: Int) {
        cvips_set_int(pointer, name, Int32(value))
    }

    /// Encodes into `path` as HEIC with its metadata, for tests (phones' format; never an output here).
    func saveHEIC(to path: String, quality: Int) -> Bool {
        cvips_save_heic(pointer, path, Int32(quality)) == 0
    }

    /// Encodes into `path`, a JPEG with optimised Huffman tables when `smallest`; on failure the system's error of the
    /// write (ENOSPC, …), or 0 when the image was at fault (the reason is in `VipsLibrary.takeError(about:)`). A failure
    /// may leave a partial file for the caller to remove.
    func save(
        to path: String, format: ImageOutputFormat, quality: Int, strip: Bool, smallest: Bool = true
    ) -> Result<Void, SaveFailure> {
        var errorNumber: Int32 = 0
        let quality = Int32(min(max(quality, 1), 100))
        let failed =
            cvips_save(pointer, path, format.encoder, quality, strip ? 1 : 0, smallest ? 1 : 0, &errorNumber) != 0
        return failed ? .failure(SaveFailure(errorNumber: errorNumber)) : .success(())
    }

    /// Why `save` failed: the system's error of a write, or 0.
    struct SaveFailure: Error {
        let errorNumber: Int32
    }
}
