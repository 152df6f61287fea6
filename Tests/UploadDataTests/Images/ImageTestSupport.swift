import Foundation
import UploadDomain

@testable import UploadData

/// A scratch folder for one test's images, with a preparer whose temporary folder lives inside it.
struct ImageScratch {
    let root: String
    let preparer: VipsImagePreparer

    init() throws {
        var template = Array(
            ((NSTemporaryDirectory() as NSString).appendingPathComponent("vips-test-XXXXXX")).utf8CString)
        guard
            let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!).map { String(cString: $0) } })
        else { throw CocoaError(.fileWriteUnknown) }
        root = made
        try FileManager.default.createDirectory(atPath: root + "/in", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/tmp", withIntermediateDirectories: true)
        preparer = VipsImagePreparer(folder: PreparedImageFolder(parent: root + "/tmp"))
    }

    /// The files the preparer left in its temporary folder.
    var leftovers: [String] {
        (try? FileManager.default.subpathsOfDirectory(atPath: root + "/tmp")).map { $0.filter { $0.contains(".") } }
            ?? []
    }

    /// `relativePath` under the input folder as the scanner would describe it (type sniffed from its bytes).
    func item(_ relativePath: String) throws -> UploadItem {
        let path = root + "/in/" + relativePath
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let header = Array(data.prefix(MediaType.headerLength))
        return UploadItem(
            id: 0, path: path, relativePath: relativePath, size: Int64(data.count), modified: 0,
            contentType: MediaType.detect(header: header, name: relativePath), sniffedType: MediaType.sniff(header))
    }

    /// Writes `bytes` as `relativePath` in the input folder.
    func write(_ bytes: [UInt8], to relativePath: String) throws -> UploadItem {
        let path = root + "/in/" + relativePath
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return try item(relativePath)
    }

    /// Saves a `width`×`height` noise image as `relativePath` in `format`, after `configure` set its metadata.
    func image(
        _ relativePath: String, width: Int, height: Int, format: ImageOutputFormat, quality: Int = 90,
        configure: (VipsImage) -> Void = { _ in }
    ) throws -> UploadItem {
        let path = root + "/in/" + relativePath
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard VipsLibrary.loadError() == nil, let image = VipsImage.noise(width: width, height: height) else {
            throw CocoaError(.fileWriteUnknown)
        }
        configure(image)
        guard case .success = image.save(to: path, format: format, quality: quality, strip: false) else {
            throw CocoaError(
                .fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: VipsLibrary.takeError(about: [path])])
        }
        return try item(relativePath)
    }

    /// Saves `rgb` (3 bytes a pixel, rows top to bottom) as `relativePath`, in the format its extension names, after
    /// `configure` set its metadata ("page-height" makes an animated GIF).
    func pixels(
        _ rgb: [UInt8], width: Int, height: Int, as relativePath: String, configure: (VipsImage) -> Void = { _ in }
    ) throws -> UploadItem {
        let path = root + "/in/" + relativePath
        let type = MediaType.detect(header: [], name: relativePath)
        guard VipsLibrary.loadError() == nil, let format = ImageOutputFormat.same(as: type),
            let image = VipsImage.pixels(rgb, width: width, height: height)
        else { throw CocoaError(.fileWriteUnknown) }
        configure(image)
        guard case .success = image.save(to: path, format: format, quality: 90, strip: false) else {
            throw CocoaError(
                .fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: VipsLibrary.takeError(about: [path])])
        }
        return try item(relativePath)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: root)
    }
}

/// A PNG made by hand: a valid signature and IHDR (with its CRC) declaring `width`×`height`, then an IDAT whose
/// bytes are not a deflate stream, so decoding it would fail.
func pngDeclaring(width: UInt32, height: UInt32) -> [UInt8] {
    func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }
    let ihdr = bigEndian(width) + bigEndian(height) + [8, 2, 0, 0, 0]  // 8-bit RGB, deflate, no interlace
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
        + chunk("IDAT", Array(repeating: 0xAB, count: 64)) + chunk("IEND", [])
}

/// An 8-bit RGB PNG of a smooth gradient, stored without compression (deflate's stored blocks).
func pngGradient(width: Int, height: Int) -> [UInt8] {
    func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    var raw: [UInt8] = []
    raw.reserveCapacity((width * 3 + 1) * height)
    for y in 0..<height {
        raw.append(0)  // no filter
        for x in 0..<width {
            raw.append(UInt8(x * 255 / width))
            raw.append(UInt8(y * 255 / height))
            raw.append(UInt8((x + y) * 255 / (width + height)))
        }
    }
    var zlib: [UInt8] = [0x78, 0x01]
    zlib.reserveCapacity(raw.count + raw.count / 65_535 * 5 + 16)
    var offset = 0
    repeat {
        let length = min(65_535, raw.count - offset)
        let last: UInt8 = offset + length == raw.count ? 1 : 0
        zlib += [last, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
        zlib += raw[offset..<(offset + length)]
        offset += length
    } while offset < raw.count
    var (a, b): (UInt32, UInt32) = (1, 0)
    for byte in raw {
        a = (a + UInt32(byte)) % 65_521
        b = (b + a) % 65_521
    }
    zlib += bigEndian(b << 16 | a)
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32Table(body))
    }
    let ihdr = bigEndian(UInt32(width)) + bigEndian(UInt32(height)) + [8, 2, 0, 0, 0]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", zlib)
        + chunk("IEND", [])
}

/// `crc32` by a table, for chunks of megabytes: the bitwise loop took seconds of a debug build's pool thread.
func crc32Table(_ bytes: [UInt8]) -> UInt32 {
    let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
        return c
    }
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
    return crc ^ 0xFFFF_FFFF
}

/// CRC-32 as PNG uses it (ISO 3309, reflected, polynomial 0xEDB88320).
func crc32(_ bytes: [UInt8]) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
