import Crypto
import Foundation

/// What the modeling step learned about one stored file.
struct ImageReport: Equatable, Sendable {
    /// Bytes on disk.
    var size: Int
    /// Lowercase hex SHA-256 of the stored bytes.
    var sha256: String
    /// `jpeg`, `png`, `gif`, `webp`, `heic` or `heif`; nil for anything else.
    var signature: String?
    /// Pixel width, when the format header exposes it.
    var width: Int?
    /// Pixel height, when the format header exposes it.
    var height: Int?
    /// A JPEG's EXIF block, when it has one.
    var exif: ExifSummary?
}

/// The "modeling step": reads a stored file back from disk and derives its checksum, image type
/// and pixel size from the raw bytes — no image library, only the few header fields needed.
enum ImageInspector {
    /// Chunk size for hashing; large enough to amortise syscalls, small enough to keep memory flat.
    static let readChunk = 1 << 20

    /// Inspects the file at `path`.
    static func inspect(path: String) throws -> ImageReport {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ReferenceServerError(.storageFailed, "cannot reopen stored file")
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        var size = 0
        var head = [UInt8]()
        while let chunk = try handle.read(upToCount: readChunk), !chunk.isEmpty {
            hasher.update(data: chunk)
            size += chunk.count
            if head.count < 64 { head += chunk.prefix(64 - head.count) }
        }
        var report = ImageReport(size: size, sha256: hasher.finalize().hexString)
        report.signature = signature(of: head)
        let dimensions: (Int, Int)?
        switch report.signature {
        case "png": dimensions = pngSize(head)
        case "gif": dimensions = gifSize(head)
        case "webp": dimensions = webpSize(head)
        case "jpeg":
            let jpeg = try jpegInfo(handle)
            dimensions = jpeg.size
            report.exif = jpeg.exif
        default: dimensions = nil
        }
        report.width = dimensions?.0
        report.height = dimensions?.1
        return report
    }

    /// Identifies the format from magic bytes.
    static func signature(of head: [UInt8]) -> String? {
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return "jpeg" }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "png" }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) { return "gif" }
        if head.count >= 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WEBP".utf8) {
            return "webp"
        }
        // ISO-BMFF: `....ftyp<brand>`; HEIF images are told apart from MP4 etc. by the brand.
        if head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            if ["heic", "heix", "hevc", "hevx", "heim", "heis"].contains(brand) { return "heic" }
            if ["mif1", "msf1", "heif"].contains(brand) { return "heif" }
        }
        return nil
    }

    /// PNG: the IHDR chunk is always first; width/height are big-endian at offsets 16 and 20.
    static func pngSize(_ head: [UInt8]) -> (Int, Int)? {
        guard head.count >= 24, head[12..<16].elementsEqual("IHDR".utf8) else { return nil }
        return (bigEndian(head, 16, 4), bigEndian(head, 20, 4))
    }

    /// GIF: logical screen size, little-endian 16-bit at offsets 6 and 8.
    static func gifSize(_ head: [UInt8]) -> (Int, Int)? {
        guard head.count >= 10 else { return nil }
        return (littleEndian(head, 6, 2), littleEndian(head, 8, 2))
    }

    /// WebP: the first chunk after `RIFF....WEBP` says which bitstream (lossy, lossless, extended).
    static func webpSize(_ head: [UInt8]) -> (Int, Int)? {
        guard head.count >= 30 else { return nil }
        switch String(decoding: head[12..<16], as: UTF8.self) {
        case "VP8 ":
            // Key frame: 3-byte frame tag, start code 9D 01 2A, then 14-bit width/height.
            guard head[23] == 0x9D, head[24] == 0x01, head[25] == 0x2A else { return nil }
            return (littleEndian(head, 26, 2) & 0x3FFF, littleEndian(head, 28, 2) & 0x3FFF)
        case "VP8L":
            // Signature 0x2F, then (width-1) and (height-1) as packed 14-bit fields.
            guard head[20] == 0x2F else { return nil }
            let bits = littleEndian(head, 21, 4)
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":
            // Canvas (width-1) and (height-1) as 24-bit little-endian values.
            return (littleEndian(head, 24, 3) + 1, littleEndian(head, 27, 3) + 1)
        default:
            return nil
        }
    }

    /// JPEG: walks the marker segments until a start-of-frame (SOFn) marker, reading the EXIF block (APP1) on the
    /// way and seeking over the others — EXIF/ICC segments can be tens of KiB, so the header read above is not
    /// enough.
    static func jpegInfo(_ handle: FileHandle) throws -> (size: (Int, Int)?, exif: ExifSummary?) {
        var exif: ExifSummary?
        var offset: UInt64 = 2
        for _ in 0..<1024 {  // bounded: a hostile file cannot make us loop forever
            try handle.seek(toOffset: offset)
            guard let bytes = try handle.read(upToCount: 9), bytes.count >= 4 else { return (nil, exif) }
            let segment = [UInt8](bytes)
            guard segment[0] == 0xFF else { return (nil, exif) }
            let marker = segment[1]
            if marker == 0xFF {  // fill byte before a marker
                offset += 1
                continue
            }
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
                offset += 2  // standalone markers carry no length
                continue
            }
            if marker == 0xD9 || marker == 0xDA { return (nil, exif) }  // end of image / start of scan
            let length = bigEndian(segment, 2, 2)
            let isStartOfFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isStartOfFrame {
                guard segment.count >= 9 else { return (nil, exif) }
                // Segment: length(2) precision(1) height(2) width(2).
                return ((bigEndian(segment, 7, 2), bigEndian(segment, 5, 2)), exif)
            }
            guard length >= 2 else { return (nil, exif) }
            if marker == 0xE1, exif == nil {
                try handle.seek(toOffset: offset + 4)
                if let payload = try handle.read(upToCount: length - 2) { exif = ExifSummary(app1: [UInt8](payload)) }
            }
            offset += 2 + UInt64(length)
        }
        return (nil, exif)
    }

    private static func bigEndian(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int {
        bytes[start..<start + count].reduce(0) { $0 << 8 | Int($1) }
    }

    private static func littleEndian(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int {
        bytes[start..<start + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
