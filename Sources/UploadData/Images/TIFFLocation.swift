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
        func u64(_ bytes: [UInt8], _ at: Int) -> Int {
            // Offsets past 2^62 name nothing in a file read here.
            let (low, high) = little ? (u32(bytes, at), u32(bytes, at + 4)) : (u32(bytes, at + 4), u32(bytes, at))
            return high >> 30 == 0 ? low | high << 32 : -1
        }
        // A classic TIFF (42) has 4-byte offsets and 12-byte entries; a BigTIFF (43) 8-byte ones and 20-byte entries.
        let wide: Bool
        switch u16(header, 2) {
        case 42: wide = false
        case 43: wide = true
        default: return false
        }
        let (countSize, entrySize) = wide ? (8, 20) : (2, 12)
        /// The tags of the directory at `offset`, each with its value field read as an offset.
        func directory(at start: Int) -> [(tag: Int, value: Int)]? {
            guard let head = read(countSize, at: start) else { return nil }
            let count = wide ? u64(head, 0) : u16(head, 0)
            guard (1...4096).contains(count), let entries = read(count * entrySize, at: start + countSize) else {
                return nil
            }
            // The value field ends the entry. In a BigTIFF only a LONG8 or IFD8 fills it; a LONG or IFD (the GPS
            // pointer as most writers keep it) sits at its start, which matters in big-endian files.
            let value = entrySize - (wide ? 8 : 4)
            return (0..<count).map { index in
                let at = index * entrySize
                let eightBytes = wide && [16, 18].contains(u16(entries, at + 2))
                return (u16(entries, at), eightBytes ? u64(entries, at + value) : u32(entries, at + value))
            }
        }
        let first: Int
        if wide {
            guard let pointer = read(16, at: 0), u16(pointer, 4) == 8 else { return false }
            first = u64(pointer, 8)
        } else {
            first = u32(header, 4)
        }
        guard let tags = directory(at: first), let gps = tags.first(where: { $0.tag == 0x8825 }),
            let fields = directory(at: gps.value)
        else { return false }
        // GPSLatitude and GPSLongitude.
        return fields.contains { $0.tag == 2 || $0.tag == 4 }
    }
}
