import Testing
import UploadData

/// Magic bytes decide a file's type before its extension does; an unknown file is `application/octet-stream`.
@Suite("MediaType")
struct MediaTypeTests {
    static let signatures: [(bytes: [UInt8], type: String)] = [
        ([0xFF, 0xD8, 0xFF, 0xE0], "image/jpeg"),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0], "image/png"),
        (Array("GIF87a..".utf8), "image/gif"),
        (Array("GIF89a..".utf8), "image/gif"),
        (Array("RIFF\0\0\0\0WEBPVP8 ".utf8), "image/webp"),
        (Array("\0\0\0\u{18}ftypheic\0\0\0\0".utf8), "image/heic"),
        (Array("\0\0\0\u{18}ftypmif1\0\0\0\0".utf8), "image/heif"),
        (Array("\0\0\0\u{18}ftypavif\0\0\0\0".utf8), "image/avif"),
        (Array("\0\0\0\u{18}ftypqt  \0\0\0\0".utf8), "video/quicktime"),
        (Array("\0\0\0\u{18}ftypisom\0\0\0\0".utf8), "video/mp4"),
        ([0x49, 0x49, 0x2A, 0x00, 8], "image/tiff"),
        ([0x4D, 0x4D, 0x00, 0x2A, 0], "image/tiff"),
        (Array("BM".utf8) + [UInt8](repeating: 0, count: 12), "image/bmp"),
        (Array("%PDF-1.7".utf8), "application/pdf"),
        ([0x50, 0x4B, 0x03, 0x04, 0x14], "application/zip"),
    ]

    @Test("each signature is recognised whatever the file is called", arguments: signatures.indices)
    func sniffs(index: Int) {
        let (bytes, type) = Self.signatures[index]
        #expect(MediaType.sniff(bytes) == type)
        #expect(MediaType.detect(header: bytes, name: "upload.txt") == type)
    }

    @Test("cut-short and near-miss headers are not recognised")
    func nearMisses() {
        #expect(MediaType.sniff([]) == nil)
        #expect(MediaType.sniff([0xFF, 0xD8]) == nil)
        #expect(MediaType.sniff(Array("RIFF\0\0\0\0WAVE".utf8)) == nil)
        #expect(MediaType.sniff(Array("\0\0\0\u{18}ftypzzzz".utf8)) == nil)
        #expect(MediaType.sniff(Array("\0\0\0\u{18}ftyp".utf8)) == nil)
        #expect(MediaType.sniff(Array("BM".utf8)) == nil)
        #expect(MediaType.sniff([0x00, 0xFF, 0xD8, 0xFF]) == nil)
    }

    @Test("without a signature the extension decides, in any case; else octet-stream")
    func extensionFallback() {
        let plain = Array("hello".utf8)
        #expect(MediaType.detect(header: plain, name: "a/b/photo.JPG") == "image/jpeg")
        #expect(MediaType.detect(header: plain, name: "notes.txt") == "text/plain")
        #expect(MediaType.detect(header: plain, name: "data.bin") == "application/octet-stream")
        #expect(MediaType.detect(header: plain, name: ".jpg") == "application/octet-stream")
        #expect(MediaType.detect(header: plain, name: "README") == "application/octet-stream")
    }

    @Test("a ZIP or TIFF container keeps the type its extension names: office files, e-books, camera raw files")
    func containers() {
        let zip: [UInt8] = [0x50, 0x4B, 0x03, 0x04] + [UInt8](repeating: 0, count: 28)
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + [UInt8](repeating: 0, count: 28)
        #expect(
            MediaType.detect(header: zip, name: "report.docx")
                == "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
        #expect(MediaType.detect(header: zip, name: "book.epub") == "application/epub+zip")
        #expect(MediaType.detect(header: zip, name: "photos.zip") == "application/zip")
        #expect(MediaType.detect(header: zip, name: "fake.jpg") == "application/zip")
        #expect(MediaType.detect(header: tiff, name: "IMG_0001.DNG") == "image/x-adobe-dng")
        #expect(MediaType.detect(header: tiff, name: "scan.tif") == "image/tiff")
        #expect(MediaType.detect(header: [], name: "site.css") == "text/css")
        #expect(MediaType.detect(header: [], name: "app.js") == "text/javascript")
        #expect(MediaType.detect(header: [], name: "font.woff2") == "font/woff2")
    }
}
