/// A small picture for the preview: `width`×`height` pixels, 8-bit RGB, rows top to bottom.
public struct Thumbnail: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 3` bytes: red, green, blue.
    public let rgb: [UInt8]

    /// Creates a thumbnail; nil unless `rgb` holds exactly `width * height` pixels.
    public init?(width: Int, height: Int, rgb: [UInt8]) {
        guard width > 0, height > 0, rgb.count == width * height * 3 else { return nil }
        self.width = width
        self.height = height
        self.rgb = rgb
    }

    /// The pixel at column `x`, row `y`.
    public func pixel(x: Int, y: Int) -> RGB {
        let offset = (y * width + x) * 3
        return RGB(rgb[offset], rgb[offset + 1], rgb[offset + 2])
    }

    /// The largest box a preview asks for, in cells: each cell shows two pixels, one above the other.
    public static let box = (cols: 24, rows: 12)
}

/// An 8-bit sRGB colour.
public struct RGB: Sendable, Hashable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    /// Creates a colour.
    public init(_ red: UInt8, _ green: UInt8, _ blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
}

/// Makes thumbnails of files; the executable gives the screen one (libvips), tests give a fake.
public protocol ThumbnailSource: Sendable {
    /// `path` decoded and shrunk to fit `maxWidth`×`maxHeight` pixels (never enlarged), upright and in sRGB; nil
    /// when the file is no image this can read. Blocks while it decodes: call it off the screen's thread.
    func thumbnail(path: String, maxWidth: Int, maxHeight: Int) -> Thumbnail?
}
