import CVips
import UploadDomain

/// The formats a prepared image is written in, and the rule that picks one.
enum ImageOutputFormat: Equatable, CaseIterable {
    case jpeg, png, webp, tiff, gif

    /// The input types the preparer handles: those Debian's libvips 8.14 loads (HEIC, HEIF and AVIF through its
    /// libheif module).
    static let inputTypes: Set<String> = [
        "image/jpeg", "image/png", "image/webp", "image/gif", "image/tiff", "image/heic", "image/heif", "image/avif",
    ]

    /// The input types that can hold several pages or frames (animated GIF and WebP, multi-page TIFF).
    static let pagedTypes: Set<String> = ["image/gif", "image/webp", "image/tiff"]

    /// The format written for an input of MIME type `inputType` under `options`.
    ///
    /// `--convert` wins. Otherwise the input's own format when libvips writes it well; HEIC, HEIF and AVIF become
    /// JPEG: libvips can encode them here, but slowly (x265, libaom) and for fewer readers.
    static func forInput(_ inputType: String, options: ImageOptions) -> ImageOutputFormat {
        switch options.convert {
        case .jpeg: return .jpeg
        case .webp: return .webp
        case nil: return same(as: inputType) ?? .jpeg
        }
    }

    /// The format of an input of MIME type `inputType`, when it is one of these.
    static func same(as inputType: String) -> ImageOutputFormat? {
        allCases.first { $0.contentType == inputType }
    }

    /// The `Content-Type` of a file in this format.
    var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .webp: "image/webp"
        case .tiff: "image/tiff"
        case .gif: "image/gif"
        }
    }

    /// The format's name in messages.
    var name: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .webp: "WebP"
        case .tiff: "TIFF"
        case .gif: "GIF"
        }
    }

    /// The longest side the format holds, in pixels, or nil when it holds more than `--max-pixels` allows.
    var maxSide: Int? {
        switch self {
        case .jpeg: 65_500  // libjpeg's JPEG_MAX_DIMENSION
        case .webp: 16_383
        case .gif: 65_535
        case .png, .tiff: nil
        }
    }

    /// The extension a file in this format takes when the format changed.
    var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .tiff: "tif"
        case .gif: "gif"
        }
    }

    /// The shim's encoder.
    var encoder: CVipsFormat {
        switch self {
        case .jpeg: CVIPS_JPEG
        case .png: CVIPS_PNG
        case .webp: CVIPS_WEBP
        case .tiff: CVIPS_TIFF
        case .gif: CVIPS_GIF
        }
    }

    /// `relativePath` with its extension replaced by this format's (`vacation/cat.heic` → `vacation/cat.jpg`); one
    /// without an extension gets it appended.
    func remoteName(for relativePath: String) -> String {
        let nameStart = relativePath.lastIndex(of: "/").map(relativePath.index(after:)) ?? relativePath.startIndex
        let name = relativePath[nameStart...]
        // A leading dot starts a hidden file's name, not an extension.
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else {
            return relativePath + "." + fileExtension
        }
        return relativePath[..<dot] + "." + fileExtension
    }
}
