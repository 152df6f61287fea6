import Testing
import UploadDomain

@testable import UploadData

/// A TIFF's GPS position, which libvips' loader does not show: found by its GPS directory.
@Suite("TIFFLocation")
struct TIFFLocationTests {
    /// A 1x1 grey TIFF, written by hand (libvips cannot add a GPS directory to one); `big` makes it a BigTIFF, whose
    /// GPS pointer is of `pointerType`: a LONG (4), as most writers keep it, or an IFD8 (18).
    static func tiff(littleEndian: Bool, gps: Bool, big: Bool = false, pointerType: Int = 4) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] {
            let bytes = [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
            return littleEndian ? bytes : bytes.reversed()
        }
        func u32(_ value: Int) -> [UInt8] {
            littleEndian ? u16(value & 0xFFFF) + u16(value >> 16) : u16(value >> 16) + u16(value & 0xFFFF)
        }
        func u64(_ value: Int) -> [UInt8] {
            littleEndian ? u32(value & 0xFFFF_FFFF) + u32(value >> 32) : u32(value >> 32) + u32(value & 0xFFFF_FFFF)
        }
        /// An offset, or a count of values, as wide as the form takes.
        func word(_ value: Int) -> [UInt8] { big ? u64(value) : u32(value) }
        /// One entry; a SHORT, or a LONG in a BigTIFF, sits at the start of its value field.
        func entry(_ tag: Int, type: Int, count: Int = 1, value: Int) -> [UInt8] {
            let field =
                switch (type, big) {
                case (3, _): u16(value) + [UInt8](repeating: 0, count: big ? 6 : 2)
                case (4, true): u32(value) + [0, 0, 0, 0]
                default: word(value)
                }
            return u16(tag) + u16(type) + word(count) + field
        }
        let (header, countSize, entrySize) = big ? (16, 8, 20) : (8, 2, 12)
        func directorySize(_ entries: Int) -> Int { countSize + entries * entrySize + (big ? 8 : 4) }
        let entries = gps ? 10 : 9
        let gpsOffset = header + directorySize(entries)
        let rationals = gpsOffset + directorySize(2)
        let pixel = gps ? rationals + 24 : gpsOffset
        var ifd = [
            entry(256, type: 3, value: 1), entry(257, type: 3, value: 1), entry(258, type: 3, value: 8),
            entry(259, type: 3, value: 1), entry(262, type: 3, value: 1), entry(273, type: 4, value: pixel),
            entry(277, type: 3, value: 1), entry(278, type: 3, value: 1), entry(279, type: 4, value: 1),
        ]
        if gps { ifd.append(entry(0x8825, type: pointerType, value: gpsOffset)) }
        var bytes = littleEndian ? Array("II".utf8) : Array("MM".utf8)
        bytes += big ? u16(43) + u16(8) + u16(0) + u64(header) : u16(42) + u32(header)
        bytes += (big ? u64(entries) : u16(entries)) + ifd.flatMap { $0 } + word(0)
        if gps {
            // GPSLatitudeRef "N", GPSLatitude 51/1 30/1 0/1.
            bytes += (big ? u64(2) : u16(2)) + entry(1, type: 2, count: 2, value: 0x4E)
            bytes += entry(2, type: 5, count: 3, value: rationals) + word(0)
            bytes += [51, 1, 30, 1, 0, 1].flatMap { u32($0) }
        }
        return bytes + [0x80]
    }

    @Test("a TIFF's GPS directory is found, either byte order, BigTIFF too; one without, or not a TIFF, has none")
    func gpsDirectory() throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        for littleEndian in [true, false] {
            let name = littleEndian ? "ii" : "mm"
            let located = try scratch.write(Self.tiff(littleEndian: littleEndian, gps: true), to: "\(name)-gps.tif")
            let plain = try scratch.write(Self.tiff(littleEndian: littleEndian, gps: false), to: "\(name).tif")
            #expect(TIFFLocation.present(path: located.path), "\(name)")
            #expect(!TIFFLocation.present(path: plain.path), "\(name)")
        }
        for littleEndian in [true, false] {
            for pointerType in [4, 18] {
                let big = try scratch.write(
                    Self.tiff(littleEndian: littleEndian, gps: true, big: true, pointerType: pointerType), to: "big.tif")
                #expect(TIFFLocation.present(path: big.path), "BigTIFF, little-endian \(littleEndian), \(pointerType)")
            }
            let plain = try scratch.write(Self.tiff(littleEndian: littleEndian, gps: false, big: true), to: "big-0.tif")
            #expect(!TIFFLocation.present(path: plain.path), "BigTIFF")
        }
        let text = try scratch.write(Array("II*\0 not a directory".utf8), to: "broken.tif")
        #expect(!TIFFLocation.present(path: text.path))
    }

    @Test("the run's GPS note and the dry run count a TIFF's position, as libvips reads the file")
    func carriesLocation() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let located = try scratch.write(Self.tiff(littleEndian: true, gps: true), to: "gps.tif")
        let plain = try scratch.write(Self.tiff(littleEndian: true, gps: false), to: "plain.tif")
        let header = try #require(await scratch.preparer.inspect(located))
        #expect(header.width == 1 && header.height == 1 && header.hasLocation)
        #expect(!(await scratch.preparer.carriesLocation(plain)))
    }
}
