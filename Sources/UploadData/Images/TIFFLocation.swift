import Glibc

/// Whether a TIFF holds a GPS position: a GPS directory (tag 34853 of its first directory) with a latitude or a
/// longitude. libvips' TIFF loader keeps no EXIF, so the check of other formats' headers sees none in a TIFF.
enum TIFFLocation {
    static func present(path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        func read(_ count: Int, at offset: Int) -> [UInt8]? {
            guard count > 0, offset >= 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: count)
            let got = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return got == count ? bytes : nil
        }
        guard let header = read(8, at: 0) else { return false }
        let little: Bool
        switch (header[0], header[1]) {
        case (UInt8(ascii: "I"), UInt8(ascii: "I")): little = true
        case (UInt8(ascii: "M"), UInt8(ascii: "M")): little = false
        default: return false
        }
        func u16(_ bytes: [UInt8], _ at: Int) -> Int {
            let (first, second) = (Int(bytes[at]), Int(bytes[at + 1]))
            return little ? first | second << 8 : first << 8 | second
        }
        func u32(_ bytes: [UInt8], _ at: Int) -> Int {
            little ? u16(bytes, at) | u16(bytes, at + 2) << 16 : u16(bytes, at) << 16 | u16(bytes, at + 2)
        }
        // A BigTIFF (43) has 8-byte offsets; cameras and editors write the classic form.
        guard u16(header, 2) == 42 else { return false }
        /// The tags of the directory at `offset`, each with its value field read as a 32-bit offset.
        func directory(at offset: Int) -> [(tag: Int, value: Int)]? {
            guard let count = read(2, at: offset).map({ u16($0, 0) }), (1...4096).contains(count),
                let entries = read(count * 12, at: offset + 2)
            else { return nil }
            return (0..<count).map { (u16(entries, $0 * 12), u32(entries, $0 * 12 + 8)) }
        }
        guard let first = directory(at: u32(header, 4)), let gps = first.first(where: { $0.tag == 0x8825 }),
            let fields = directory(at: gps.value)
        else { return false }
        // GPSLatitude and GPSLongitude.
        return fields.contains { $0.tag == 2 || $0.tag == 4 }
    }
}
