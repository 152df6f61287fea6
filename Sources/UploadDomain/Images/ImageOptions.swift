/// What preprocessing does to each image before it is sent (issue 16); the originals are never touched.
public struct ImageOptions: Sendable, Equatable {
    /// A format to re-encode into.
    public enum Format: String, Sendable, CaseIterable {
        case jpeg
        case webp

        /// The file extension a converted file takes (`cat.heic` becomes `cat.jpg`).
        public var fileExtension: String {
            switch self {
            case .jpeg: "jpg"
            case .webp: "webp"
            }
        }

        /// The `Content-Type` of a converted file.
        public var contentType: String {
            switch self {
            case .jpeg: "image/jpeg"
            case .webp: "image/webp"
            }
        }
    }

    /// Longest side at most this many pixels; never upscaled.
    public var maxDimension: Int?
    /// Re-encode into this format.
    public var convert: Format?
    /// Encoder quality, 1–100 (seed 002's 0.8 is 80).
    public var quality: Int
    /// Remove EXIF, GPS, XMP, IPTC and comments.
    public var stripMetadata: Bool
    /// Images declaring more pixels than this are refused before decoding.
    public var maxPixels: Int64

    /// Creates options; the defaults change nothing.
    public init(
        maxDimension: Int? = nil, convert: Format? = nil, quality: Int = 80, stripMetadata: Bool = false,
        maxPixels: Int64 = 100_000_000
    ) {
        self.maxDimension = maxDimension
        self.convert = convert
        self.quality = quality
        self.stripMetadata = stripMetadata
        self.maxPixels = maxPixels
    }

    /// True when images are sent as they are.
    public var changesNothing: Bool { maxDimension == nil && convert == nil && !stripMetadata }

    /// The options that change the bytes sent, as text: part of a file's identity in the journal, so a rerun with
    /// other options sends again. Empty when nothing changes.
    public var identityTag: String {
        guard !changesNothing else { return "" }
        var parts: [String] = []
        if let maxDimension { parts.append("max-dimension=\(maxDimension)") }
        if let convert { parts.append("convert=\(convert.rawValue)") }
        // Every option but stripping a JPEG re-encodes, so the quality changes the bytes whatever else is asked.
        parts.append("quality=\(quality)")
        if stripMetadata { parts.append("strip-metadata") }
        return parts.joined(separator: ",")
    }

    /// `destination` as the journal keys it: with the options that change the bytes, so a rerun with the same
    /// options skips what is done and one with other options sends again.
    public func journalDestination(_ destination: String) -> String {
        let tag = identityTag
        return tag.isEmpty ? destination : destination + " [\(tag)]"
    }
}

/// An image made ready to send: a file in the private temporary folder, streamed like any other file.
public struct PreparedImage: Sendable, Equatable {
    /// The prepared file's absolute path (inside the temporary folder).
    public var path: String
    /// The remote name: the original's relative path, with the new extension when converted.
    public var remoteName: String
    public var contentType: String
    /// Bytes of the prepared file.
    public var size: Int64
    /// Pixel size after preparing.
    public var width: Int
    public var height: Int
    /// The prepared file's modification time, so the transfer can tell it has not changed under it.
    public var modified: Double

    /// Creates a prepared image.
    public init(
        path: String, remoteName: String, contentType: String, size: Int64, width: Int, height: Int,
        modified: Double = 0
    ) {
        self.path = path
        self.remoteName = remoteName
        self.contentType = contentType
        self.size = size
        self.width = width
        self.height = height
        self.modified = modified
    }
}

/// How much work the encoder spends on smaller output. The pixels are the same either way: only the entropy coding
/// differs, so the choice is the session's, by which side waits, and never part of a file's identity.
public enum ImageEncoding: Sendable, Equatable {
    /// The link waits for the encoder: no work for fewer bytes.
    case fastest
    /// Files wait for the link: fewer bytes for more work (JPEG's optimised Huffman tables, about 8% smaller for
    /// about 7% more CPU).
    case smallest
}

/// Prepares images for sending (libvips in UploadData; an in-memory one in tests).
public protocol ImagePreparing: Sendable {
    /// Prepares `item` with `options`, encoded as `encoding` asks, into the temporary folder.
    /// - Returns: the prepared file, or nil when `item` is not an image the options apply to (it is sent as is).
    /// - Throws: `UploadError` with `imageUnreadable`, `imageTooLarge`, `metadataNotStripped`, `fileUnreadable` or
    ///   `preparedCopyUnwritable`, naming the file.
    func prepare(
        _ item: UploadItem, options: ImageOptions, encoding: ImageEncoding
    ) async throws(UploadError) -> PreparedImage?
    /// Removes a prepared file (its upload ended: done, failed or cancelled).
    func discard(_ prepared: PreparedImage)
}
