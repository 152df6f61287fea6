import CVips

/// Small RGB pictures of image files for the screen's preview, made with libvips.
public enum VipsThumbnailer {
    /// `path` shrunk on load to fit `maxWidth`×`maxHeight` pixels (never enlarged), upright, in 8-bit sRGB, alpha laid
    /// on black; nil when libvips is missing or the file is no image it reads. Blocks while it decodes.
    /// - Returns: the size and the pixels, 3 bytes each (red, green, blue), rows top to bottom.
    public static func rgb(path: String, maxWidth: Int, maxHeight: Int) -> (width: Int, height: Int, rgb: [UInt8])? {
        guard maxWidth > 0, maxHeight > 0, VipsLibrary.loadError() == nil else { return nil }
        var width: Int32 = 0
        var height: Int32 = 0
        // What libvips says goes with the job: the reason would only say why a non-image is no image, and the
        // preview shows "no preview".
        let made = VipsLibrary.job {
            cvips_rgb_thumbnail(path, Int32(clamping: maxWidth), Int32(clamping: maxHeight), &width, &height)
        }
        guard let pixels = made else { return nil }
        // No cvips_trim here, unlike the preparer: a preview's buffers are a few kilobytes.
        defer { pixels.withMemoryRebound(to: CChar.self, capacity: 1) { cvips_free_string($0) } }
        let count = Int(width) * Int(height) * 3
        return (Int(width), Int(height), Array(UnsafeBufferPointer(start: pixels, count: count)))
    }
}
