import ArgumentParser
import UploadDomain

/// Image preprocessing options (issue 16); without any of them images are sent byte for byte.
struct ImageFlags: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Shrink images so their longest side is at most this many pixels (never enlarged; EXIF rotation applied).",
            valueName: "px"))
    var maxDimension: Int?

    @Option(
        help: ArgumentHelp("Re-encode images as jpeg or webp (HEIC, PNG, WebP, TIFF in).", valueName: "format"),
        completion: .list(["jpeg", "webp"]))
    var convert: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Encoder quality for re-encoded (resized, converted, or stripped non-JPEG) images, 1-100.", valueName: "q"))
    var quality = 80

    @Flag(
        inversion: .prefixedNo,
        help: "Remove EXIF, GPS, XMP and IPTC metadata from images (a JPEG's pixels are copied, not re-encoded).")
    var stripMetadata = false

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp("Refuse images declaring more pixels than this, before decoding them.", valueName: "n"))
    var maxPixels: Int64 = 100_000_000

    /// The options as given; a value out of range is a usage error.
    func parsed() throws -> ImageOptions {
        if let maxDimension, maxDimension < 1 {
            throw UsageError(description: "--max-dimension takes a number of pixels, 1 or more, not \(maxDimension)")
        }
        var format: ImageOptions.Format?
        if let convert {
            guard
                let known = ImageOptions.Format(rawValue: convert.lowercased() == "jpg" ? "jpeg" : convert.lowercased())
            else {
                throw UsageError(description: "--convert takes jpeg or webp, not '\(Sanitizer.displayName(convert))'")
            }
            format = known
        }
        guard (1...100).contains(quality) else {
            throw UsageError(description: "--quality takes a number from 1 to 100, not \(quality)")
        }
        guard maxPixels >= 1 else {
            throw UsageError(description: "--max-pixels takes a number of pixels, 1 or more, not \(maxPixels)")
        }
        return ImageOptions(
            maxDimension: maxDimension, convert: format, quality: quality, stripMetadata: stripMetadata,
            maxPixels: maxPixels)
    }
}
