import Foundation

/// Minimal image headers built byte by byte, so the inspector is tested against inputs whose
/// dimensions the test chose rather than fixtures with baked-in answers.
enum TestImages {
    /// A PNG with a valid signature, IHDR (with CRC) and empty IEND; the inspector never decodes
    /// pixel data, so no IDAT is needed.
    static func png(width: Int, height: Int) -> Data {
        var ihdr = Data()
        ihdr.append(bigEndian32(width))
        ihdr.append(bigEndian32(height))
        ihdr.append(contentsOf: [8, 2, 0, 0, 0])  // 8-bit RGB, default compression/filter/interlace
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        data.append(chunk("IHDR", ihdr))
        data.append(chunk("IEND", Data()))
        return data
    }

    /// A GIF89a logical screen descriptor followed by a trailer.
    static func gif(width: Int, height: Int) -> Data {
        var data = Data("GIF89a".utf8)
        data.append(littleEndian(width, bytes: 2))
        data.append(littleEndian(height, bytes: 2))
        data.append(contentsOf: [0, 0, 0, 0x3B])
        return data
    }

    /// A JPEG with a large APP1 segment before the SOF0 marker, as cameras write EXIF.
    static func jpeg(width: Int, height: Int, app1Bytes: Int = 40_000) -> Data {
        var data = Data([0xFF, 0xD8])
        data.append(contentsOf: [0xFF, 0xE1])
        data.append(bigEndian16(app1Bytes + 2))
        data.append(Data(repeating: 0xAB, count: app1Bytes))
        data.append(contentsOf: [0xFF, 0xC0])
        data.append(bigEndian16(17))
        data.append(8)
        data.append(bigEndian16(height))
        data.append(bigEndian16(width))
        data.append(contentsOf: [3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
        data.append(contentsOf: [0xFF, 0xD9])
        return data
    }

    /// A lossless (VP8L) WebP header.
    static func webpLossless(width: Int, height: Int) -> Data {
        let packed = UInt32(width - 1) | UInt32(height - 1) << 14
        var payload = Data([0x2F])
        payload.append(littleEndian(Int(packed), bytes: 4))
        payload.append(Data(repeating: 0, count: 8))
        return riffWebP(fourCC: "VP8L", payload: payload)
    }

    /// An extended (VP8X) WebP header.
    static func webpExtended(width: Int, height: Int) -> Data {
        var payload = Data([0, 0, 0, 0])
        payload.append(littleEndian(width - 1, bytes: 3))
        payload.append(littleEndian(height - 1, bytes: 3))
        return riffWebP(fourCC: "VP8X", payload: payload)
    }

    /// A lossy (VP8) WebP key frame header.
    static func webpLossy(width: Int, height: Int) -> Data {
        var payload = Data([0x50, 0x01, 0x00, 0x9D, 0x01, 0x2A])
        payload.append(littleEndian(width, bytes: 2))
        payload.append(littleEndian(height, bytes: 2))
        payload.append(Data(repeating: 0, count: 8))
        return riffWebP(fourCC: "VP8 ", payload: payload)
    }

    /// An ISO-BMFF `ftyp` box with the given major brand.
    static func ftyp(brand: String) -> Data {
        var data = bigEndian32(24)
        data.append(Data("ftyp".utf8))
        data.append(Data(brand.utf8))
        data.append(bigEndian32(0))
        data.append(Data("mif1heic".utf8))
        return data
    }

    private static func riffWebP(fourCC: String, payload: Data) -> Data {
        var data = Data("RIFF".utf8)
        data.append(littleEndian(payload.count + 12, bytes: 4))
        data.append(Data("WEBP".utf8))
        data.append(Data(fourCC.utf8))
        data.append(littleEndian(payload.count, bytes: 4))
        data.append(payload)
        return data
    }

    private static func chunk(_ type: String, _ payload: Data) -> Data {
        var data = bigEndian32(payload.count)
        let typed = Data(type.utf8) + payload
        data.append(typed)
        data.append(bigEndian32(Int(crc32(typed))))
        return data
    }

    private static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    private static func bigEndian32(_ value: Int) -> Data {
        Data((0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) })
    }

    private static func bigEndian16(_ value: Int) -> Data {
        Data([UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)])
    }

    private static func littleEndian(_ value: Int, bytes: Int) -> Data {
        Data((0..<bytes).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) })
    }
}
