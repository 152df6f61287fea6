/// What a JPEG's EXIF block says that matters to a person uploading photos: whether there is one, whether it holds
/// a GPS location, and the orientation tag (issue 16: the manifest shows what arrived, with or without GPS).
struct ExifSummary: Equatable, Sendable {
    /// The orientation tag (1–8), when the block has one.
    var orientation: Int?
    /// The block points to a GPS IFD with at least one entry.
    var hasGPS: Bool

    /// Parses the payload of an APP1 segment (after its length field); nil when it is not an EXIF block.
    ///
    /// Bounded by the payload: every offset is checked, so a hostile file cannot read outside it or loop.
    init?(app1 payload: [UInt8]) {
        let header: [UInt8] = Array("Exif".utf8) + [0, 0]
        guard payload.count >= 14, payload.starts(with: header) else { return nil }
        let tiff = Array(payload[6...])
        let little: Bool
        switch (tiff[0], tiff[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func read(_ offset: Int, _ count: Int) -> Int? {
            guard offset >= 0, offset + count <= tiff.count else { return nil }
            let bytes = tiff[offset..<offset + count]
            return (little ? Array(bytes.reversed()) : Array(bytes)).reduce(0) { $0 << 8 | Int($1) }
        }
        guard read(2, 2) == 42, let ifd0 = read(4, 4), let entries = read(ifd0, 2) else { return nil }
        var orientation: Int?
        var gpsOffset: Int?
        for index in 0..<min(entries, 512) {
            let entry = ifd0 + 2 + index * 12
            guard let tag = read(entry, 2) else { break }
            switch tag {
            case 0x0112: orientation = read(entry + 8, 2)
            case 0x8825: gpsOffset = read(entry + 8, 4)
            default: break
            }
        }
        self.orientation = orientation
        hasGPS = gpsOffset.flatMap { read($0, 2) }.map { $0 > 0 } ?? false
    }

    /// Creates a summary.
    init(orientation: Int?, hasGPS: Bool) {
        self.orientation = orientation
        self.hasGPS = hasGPS
    }
}
