import Testing
import UploadDomain

@testable import UploadData

@Suite("ImageOutputFormat")
struct ImageOutputFormatTests {
    @Test("--convert wins; otherwise the input's format, and JPEG for HEIC, HEIF and AVIF")
    func choosesFormat() {
        #expect(ImageOutputFormat.forInput("image/png", options: ImageOptions(convert: .webp)) == .webp)
        #expect(ImageOutputFormat.forInput("image/heic", options: ImageOptions(convert: .jpeg)) == .jpeg)
        #expect(ImageOutputFormat.forInput("image/png", options: ImageOptions(stripMetadata: true)) == .png)
        #expect(ImageOutputFormat.forInput("image/gif", options: ImageOptions(stripMetadata: true)) == .gif)
        #expect(ImageOutputFormat.forInput("image/tiff", options: ImageOptions(maxDimension: 10)) == .tiff)
        for type in ["image/heic", "image/heif", "image/avif"] {
            #expect(ImageOutputFormat.forInput(type, options: ImageOptions(maxDimension: 10)) == .jpeg)
        }
    }

    @Test("the remote name takes the new extension")
    func remoteName() {
        #expect(ImageOutputFormat.jpeg.remoteName(for: "vacation/cat.heic") == "vacation/cat.jpg")
        #expect(ImageOutputFormat.webp.remoteName(for: "a.b/photo.JPG") == "a.b/photo.webp")
        #expect(ImageOutputFormat.jpeg.remoteName(for: "dir.x/noext") == "dir.x/noext.jpg")
        #expect(ImageOutputFormat.jpeg.remoteName(for: ".hidden") == ".hidden.jpg")
    }

    @Test("libvips' error lines become one line without repeats")
    func oneLine() {
        let text = "VipsJpeg: Premature end of input file\nVipsJpeg: Premature end of input file\n  jpegload: fail\n\n"
        #expect(VipsLibrary.oneLine(text) == "VipsJpeg: Premature end of input file; jpegload: fail")
    }
}
