import Foundation

/// Whether a GIF holds a GPS position in its XMP, an application extension ("XMP DataXMP") libvips' GIF loader does
/// not read, so the check of other formats' headers sees none in a GIF.
enum GIFLocation {
    static func present(path: String) -> Bool {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return false }
        return data.withUnsafeBytes { bytes in
            // Extension introducer, application label, block size 11, then the identifier and authentication code.
            let marker: [UInt8] = [0x21, 0xFF, 0x0B] + Array("XMP DataXMP".utf8)
            guard let found = bytes.firstRange(of: marker) else { return false }
            // The packet's raw bytes run up to the "magic trailer" (0x01, 0xFF, 0xFE, …) that ends it.
            let rest = bytes[found.upperBound...]
            let packet = rest[..<(rest.firstRange(of: [0x01, 0xFF, 0xFE])?.lowerBound ?? rest.endIndex)]
            return packet.firstRange(of: Array("GPSLatitude".utf8)) != nil
                || packet.firstRange(of: Array("GPSLongitude".utf8)) != nil
        }
    }
}
