import CVips
import Synchronization

/// libvips as the preparer uses it: loaded on first use, with its process-wide error buffer read as one line.
enum VipsLibrary {
    /// Why libvips cannot be used (not installed, too old), or nil once it is loaded and initialised.
    static func loadError() -> String? {
        cvips_load_error().map { String(cString: $0) }
    }

    /// The messages about `paths` (an image's input, its output) as one line, then clears them; without a message
    /// naming them, the waiting messages that name no file at all (a decoder's "Premature end of input file").
    ///
    /// libvips' buffer is the process's: a worker's take also empties the messages of another worker's failure, so
    /// what a take finds but does not claim waits here for the failure whose paths it names (two images failing
    /// on a full disk at once each say so, not "unknown libvips error"). A message naming another file is never
    /// given: it is that file's, left by its failure or by a load that went on and succeeded.
    static func takeError(about paths: [String]) -> String {
        let lines: [Substring] = unclaimed.withLock { waiting in
            collect(into: &waiting)
            var (mine, rest) = claim(paths, from: waiting)
            if mine.isEmpty {
                mine = rest.filter { !namesAFile($0) }
                rest.removeAll { !namesAFile($0) }
            }
            waiting = Array(rest.suffix(64))
            return mine
        }
        return lines.isEmpty ? "unknown libvips error" : oneLine(lines.joined(separator: "\n"))
    }

    /// Drops the messages about `paths`, an image libvips read without failing: they would otherwise wait to be
    /// taken by another file's failure.
    static func discardErrors(about paths: [String]) {
        unclaimed.withLock { waiting in
            collect(into: &waiting)
            waiting = Array(claim(paths, from: waiting).rest.suffix(64))
        }
    }

    /// Moves libvips' pending messages to `waiting`.
    private static func collect(into waiting: inout [Substring]) {
        guard let text = cvips_take_error() else { return }
        waiting += String(cString: text).split(whereSeparator: \.isNewline)
        cvips_free_string(text)
    }

    /// The lines naming one of `paths`, each with the system's reason on the line after it, and the others.
    private static func claim(_ paths: [String], from lines: [Substring]) -> (mine: [Substring], rest: [Substring]) {
        var mine: [Substring] = []
        var rest: [Substring] = []
        var claiming = false
        for line in lines {
            if paths.contains(where: { line.contains($0) }) {
                claiming = true
                mine.append(line)
            } else if claiming, line.hasPrefix("unix error:") {
                mine.append(line)
            } else {
                claiming = false
                rest.append(line)
            }
        }
        return (mine, rest)
    }

    /// True when `line` holds an absolute path (libvips names files by the path they were opened with).
    private static func namesAFile(_ line: Substring) -> Bool {
        line.hasPrefix("/") || line.contains(" /") || line.contains("\"/")
    }

    private static let unclaimed = Mutex<[Substring]>([])

    /// `text`'s non-empty lines, trimmed, without repeats, joined by "; " and cut at 300 characters.
    static func oneLine(_ text: String) -> String {
        var seen: Set<Substring> = []
        let lines = text.split(whereSeparator: \.isNewline)
            .map { $0.drop(while: \.isWhitespace) }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
        let joined = lines.joined(separator: "; ")
        return joined.count > 300 ? String(joined.prefix(299)) + "…" : joined
    }
}

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

    /// `path` shrunk while decoding to fit `maxSide`×`maxSide` (never enlarged) and turned upright.
    static func thumbnail(path: String, maxSide: Int, toSRGB: Bool) -> VipsImage? {
        cvips_thumbnail(path, Int32(clamping: maxSide), toSRGB ? 1 : 0).map(VipsImage.init)
    }

    /// `path` at full size, turned upright; `header` is the same file opened by `header(path:)`.
    static func upright(path: String, header: VipsImage, toSRGB: Bool) -> VipsImage? {
        cvips_upright(path, header.pointer, toSRGB ? 1 : 0).map(VipsImage.init)
    }

    /// Every page of `path` (an animated GIF or WebP, a multi-page TIFF) stacked, each shrunk to fit
    /// `maxSide`×`maxSide` when given (never enlarged); saved as GIF, WebP or TIFF, the pages are written again.
    static func allPages(path: String, maxSide: Int?, toSRGB: Bool) -> VipsImage? {
        cvips_all_pages(path, Int32(clamping: maxSide ?? 0), toSRGB ? 1 : 0).map(VipsImage.init)
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
