import Foundation
import Testing

@testable import ReferenceServer

/// The EXIF facts the manifest records: a block is there, it holds GPS, its orientation.
@Suite("EXIF summary")
struct ExifSummaryTests {
    /// An APP1 EXIF payload: IFD0 with an orientation entry and, with `gpsEntries`, a GPS IFD pointer to an IFD of
    /// that many entries.
    static func exif(littleEndian: Bool, orientation: Int?, gpsEntries: Int?) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] {
            let bytes = [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return littleEndian ? bytes.reversed() : bytes
        }
        func u32(_ v: Int) -> [UInt8] {
            let bytes = [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            return littleEndian ? bytes.reversed() : bytes
        }
        var entries: [[UInt8]] = []
        if let orientation { entries.append(u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0]) }
        let ifd0Size = 2 + (entries.count + (gpsEntries == nil ? 0 : 1)) * 12 + 4
        let gpsOffset = 8 + ifd0Size
        if gpsEntries != nil { entries.append(u16(0x8825) + u16(4) + u32(1) + u32(gpsOffset)) }
        var tiff: [UInt8] = (littleEndian ? Array("II".utf8) : Array("MM".utf8)) + u16(42) + u32(8)
        tiff += u16(entries.count) + entries.flatMap { $0 } + u32(0)
        if let gpsEntries {
            tiff += u16(gpsEntries)
            for _ in 0..<gpsEntries { tiff += u16(0x0002) + u16(5) + u32(3) + u32(0) }
            tiff += u32(0)
        }
        return Array("Exif".utf8) + [0, 0] + tiff
    }

    @Test("orientation and GPS in either byte order; a GPS pointer to an empty IFD is no location")
    func parses() {
        for little in [true, false] {
            #expect(
                ExifSummary(app1: Self.exif(littleEndian: little, orientation: 6, gpsEntries: 2))
                    == ExifSummary(orientation: 6, hasGPS: true))
            #expect(
                ExifSummary(app1: Self.exif(littleEndian: little, orientation: 1, gpsEntries: nil))
                    == ExifSummary(orientation: 1, hasGPS: false))
            #expect(
                ExifSummary(app1: Self.exif(littleEndian: little, orientation: nil, gpsEntries: 0))
                    == ExifSummary(orientation: nil, hasGPS: false))
        }
    }

    @Test("not EXIF, or cut anywhere: nil or a partial summary, never a read outside the payload")
    func hostile() {
        #expect(ExifSummary(app1: Array("http://ns.adobe.com/xap/1.0/\0".utf8)) == nil)
        let full = Self.exif(littleEndian: false, orientation: 8, gpsEntries: 3)
        for cut in 0..<full.count { _ = ExifSummary(app1: Array(full.prefix(cut))) }
        var loop = full
        loop[loop.count - 1] = 0xFF  // garbage in the last bytes
        _ = ExifSummary(app1: loop)
    }

    @Test("the inspector reads the EXIF block of a stored JPEG on its way to the frame header")
    func inspectorReadsExif() throws {
        let payload = Self.exif(littleEndian: true, orientation: 6, gpsEntries: 1)
        var data = Data([0xFF, 0xD8, 0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)])
        data.append(contentsOf: payload)
        data.append(TestImages.jpeg(width: 640, height: 480, app1Bytes: 100).dropFirst(2))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("exif-\(UUID().uuidString).jpg")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let report = try ImageInspector.inspect(path: url.path)
        #expect(report.exif == ExifSummary(orientation: 6, hasGPS: true))
        #expect(report.width == 640 && report.height == 480)
        let record = StoredFileRecord(field: "file", filename: "a.jpg", path: "p", contentType: "image/jpeg", report: report)
        let json = String(decoding: try JSONEncoder().encode(record), as: UTF8.self)
        #expect(json.contains("\"gps\":true") && json.contains("\"orientation\":6") && json.contains("\"exif\":true"))
        #expect(try JSONDecoder().decode(StoredFileRecord.self, from: Data(json.utf8)) == record)
    }
}
