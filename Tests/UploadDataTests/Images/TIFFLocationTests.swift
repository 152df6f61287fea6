import Testing
import UploadDomain

@testable import UploadData

/// A TIFF's GPS position, which libvips' loader does not show: found by its GPS directory.
@Suite("TIFFLocation")
struct TIFFLocationTests {
    /// A 1x1 grey TIFF, written by hand: libvips cannot add a GPS directory to one.
    static func tiff(littleEndian: Bool, gps: Bool) -> [UInt8] {
        func u16(_ value: Int) -> [UInt8] {
            let bytes = [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)]
            return littleEndian ? bytes : bytes.reversed()
        }
        func u32(_ value: Int) -> [UInt8] {
            littleEndian ? u16(value & 0xFFFF) + u16(value >> 16) : u16(value >> 16) + u16(value & 0xFFFF)
        }
        /// A 12-byte entry; a SHORT sits at the start of its value field.
        func entry(_ tag: Int, type: Int, count: Int = 1, value: Int) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + (type == 3 ? u16(value) + [0, 0] : u32(value))
        }
        let entries = gps ? 10 : 9
        let gpsOffset = 8 + 2 + entries * 12 + 4
        let rationals = gpsOffset + 2 + 2 * 12 + 4
        let pixel = gps ? rationals + 24 : gpsOffset
        var ifd = [
            entry(256, type: 3, value: 1), entry(257, type: 3, value: 1), entry(258, type: 3, value: 8),
            entry(259, type: 3, value: 1), entry(262, type: 3, value: 1), entry(273, type: 4, value: pixel),
            entry(277, type: 3, value: 1), entry(278, type: 3, value: 1), entry(279, type: 4, value: 1),
        ]
        if gps { ifd.append(entry(0x8825, type: 4, value: gpsOffset)) }
        var bytes = (littleEndian ? Array("II".utf8) : Array("MM".utf8)) + u16(42) + u32(8)
        bytes += u16(entries) + ifd.flatMap { $0 } + u32(0)
        if gps {
            // GPSLatitudeRef "N", GPSLatitude 51/1 30/1 0/1.
            bytes += u16(2) + u16(1) + u16(2) + u32(2) + [UInt8(ascii: "N"), 0, 0, 0]
            bytes += entry(2, type: 5, count: 3, value: rationals) + u32(0)
            bytes += [51, 1, 30, 1, 0, 1].flatMap { u32($0) }
        }
        return bytes + [0x80]
    }

    @Test("a TIFF's GPS directory is found, either byte order; a TIFF without one, or not a TIFF, has none")
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
