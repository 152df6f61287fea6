import Testing
import UploadDomain

@testable import UploadData

/// A GIF's GPS position, kept in XMP that libvips' GIF loader does not read.
@Suite("GIFLocation")
struct GIFLocationTests {
    /// A 1x1 GIF written by hand, with `xmp` as an XMP application extension (the packet's raw bytes, then the magic
    /// trailer that lets GIF readers skip them as sub-blocks) before its image.
    static func gif(xmp: String?) -> [UInt8] {
        let header: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0, 0xFF, 0xFF, 0xFF, 0, 0, 0]
        var extensionBlock: [UInt8] = []
        if let xmp {
            let trailer: [UInt8] = [0x01] + (0...255).reversed().map { UInt8($0) } + [0x00]
            extensionBlock = [0x21, 0xFF, 0x0B] + Array("XMP DataXMP".utf8) + Array(xmp.utf8) + trailer
        }
        let image: [UInt8] = [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B]
        return header + extensionBlock + image
    }

    static func packet(_ properties: String) -> String {
        """
        <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF \
        xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" \
        xmlns:exif="http://ns.adobe.com/exif/1.0/" \(properties)/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """
    }

    @Test("a GIF's XMP position counts for the run's GPS note and the dry run; XMP without one, or none, does not")
    func xmpPosition() async throws {
        let scratch = try ImageScratch()
        defer { scratch.remove() }
        let located = try scratch.write(
            Self.gif(xmp: Self.packet(#"exif:GPSLatitude="51,30.0N" exif:GPSLongitude="0,7.5W""#)), to: "gps.gif")
        let described = try scratch.write(Self.gif(xmp: Self.packet(#"exif:DateTimeOriginal="2026""#)), to: "x.gif")
        let plain = try scratch.write(Self.gif(xmp: nil), to: "plain.gif")
        let header = try #require(await scratch.preparer.inspect(located), "libvips reads the GIF")
        #expect(header.width == 1 && header.height == 1 && header.hasLocation)
        #expect(!(await scratch.preparer.carriesLocation(described)))
        #expect(!(await scratch.preparer.carriesLocation(plain)))
        #expect(await scratch.preparer.inspect(plain) != nil)
    }
}
