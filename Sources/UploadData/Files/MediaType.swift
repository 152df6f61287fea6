/// Finds a file's MIME type from its first bytes, then its extension.
public enum MediaType {
    /// Bytes `sniff` needs.
    public static let headerLength = 32

    /// The type from magic bytes (JPEG, PNG, GIF, WebP, HEIC/HEIF, AVIF, and a few common others), else nil.
    ///
    /// Compares in place against signatures built once: the scan calls it for every file.
    public static func sniff(_ bytes: [UInt8]) -> String? {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && bytes[offset..<offset + prefix.count].elementsEqual(prefix)
        }
        if starts(Magic.jpeg) { return "image/jpeg" }
        if starts(Magic.png) { return "image/png" }
        if starts(Magic.gif87) || starts(Magic.gif89) { return "image/gif" }
        if starts(Magic.riff), starts(Magic.webp, at: 8) { return "image/webp" }
        if starts(Magic.ftyp, at: 4), bytes.count >= 12 {
            switch String(decoding: bytes[8..<12], as: UTF8.self) {
            case "heic", "heix", "hevc", "hevx", "heim", "heis": return "image/heic"
            case "mif1", "msf1": return "image/heif"
            case "avif", "avis": return "image/avif"
            case "qt  ": return "video/quicktime"
            case "isom", "iso2", "mp41", "mp42", "avc1", "M4V ": return "video/mp4"
            default: break
            }
        }
        if starts(Magic.tiffLittle) || starts(Magic.tiffBig) { return "image/tiff" }
        if starts(Magic.bmp), bytes.count >= 14 { return "image/bmp" }
        if starts(Magic.pdf) { return "application/pdf" }
        if starts(Magic.zip) { return "application/zip" }
        return nil
    }

    /// The signatures `sniff` looks for, built once.
    private enum Magic {
        static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]
        static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        static let gif87 = Array("GIF87a".utf8)
        static let gif89 = Array("GIF89a".utf8)
        static let riff = Array("RIFF".utf8)
        static let webp = Array("WEBP".utf8)
        static let ftyp = Array("ftyp".utf8)
        static let tiffLittle: [UInt8] = [0x49, 0x49, 0x2A, 0x00]
        static let tiffBig: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A]
        static let bmp = Array("BM".utf8)
        static let pdf = Array("%PDF-".utf8)
        static let zip: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
    }

    /// The type for a file name's extension, else nil.
    public static func forExtension(of name: String) -> String? {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        return byExtension[name[name.index(after: dot)...].lowercased()]
    }

    /// The MIME type a `--types` name stands for (`jpeg`, `jpg`, `png`, `heic`, … or a MIME type), among those the
    /// bytes can tell; nil for any other name.
    public static func forTypeName(_ name: String) -> String? {
        let lowered = name.lowercased()
        let type = lowered.contains("/") ? lowered : byExtension[lowered]
        return type.flatMap { sniffable.contains($0) ? $0 : nil }
    }

    /// The names `forTypeName` takes, for messages.
    public static let typeNames = "jpeg, png, gif, webp, heic, heif, avif, tiff, bmp, pdf, zip, mp4, mov"

    private static let sniffable: Set<String> = [
        "image/jpeg", "image/png", "image/gif", "image/webp", "image/heic", "image/heif", "image/avif", "image/tiff",
        "image/bmp", "application/pdf", "application/zip", "video/mp4", "video/quicktime",
    ]

    /// Whether files of the sniffed `type` can hold EXIF metadata, a GPS location among it; GIF and BMP cannot.
    public static func mayCarryLocation(_ type: String) -> Bool {
        exifTypes.contains(type)
    }

    private static let exifTypes: Set<String> = [
        "image/jpeg", "image/png", "image/webp", "image/heic", "image/heif", "image/avif", "image/tiff",
        "image/jxl", "image/x-adobe-dng", "image/x-canon-cr2", "image/x-canon-cr3", "image/x-nikon-nef",
        "image/x-sony-arw", "image/x-olympus-orf", "image/x-panasonic-rw2", "image/x-pentax-pef",
        "image/x-samsung-srw", "image/x-fuji-raf", "image/x-epson-erf", "image/vnd.adobe.photoshop",
    ]

    /// Magic bytes first, then the extension, then `application/octet-stream`. A ZIP or TIFF container whose
    /// extension names what it holds (`.docx`, `.epub`, `.jar`; a camera's `.dng`, `.nef`) keeps that type.
    public static func detect(header: [UInt8], name: String) -> String {
        let sniffed = sniff(header)
        if let sniffed, let byName = forExtension(of: name), containers[sniffed]?.contains(byName) == true {
            return byName
        }
        return sniffed ?? forExtension(of: name) ?? "application/octet-stream"
    }

    /// Types whose files are ZIP archives or TIFF structures underneath.
    private static let containers: [String: Set<String>] = {
        let zipped = [
            "docx", "xlsx", "pptx", "odt", "ods", "odp", "epub", "jar", "apk", "xpi", "kmz",
        ]
        let tiffBased = ["dng", "cr2", "nef", "arw", "orf", "rw2", "pef", "srw", "raf", "erf"]
        return [
            "application/zip": Set(zipped.compactMap { byExtension[$0] }),
            "image/tiff": Set(tiffBased.compactMap { byExtension[$0] }),
        ]
    }()

    /// The types the aws CLI and browsers give these extensions (IANA's names where there is one).
    private static let byExtension: [String: String] = [
        // Images, camera raw files among them.
        "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "gif": "image/gif", "webp": "image/webp",
        "heic": "image/heic", "heif": "image/heif", "avif": "image/avif", "tif": "image/tiff", "tiff": "image/tiff",
        "bmp": "image/bmp", "svg": "image/svg+xml", "ico": "image/vnd.microsoft.icon", "jxl": "image/jxl",
        "dng": "image/x-adobe-dng", "cr2": "image/x-canon-cr2", "cr3": "image/x-canon-cr3",
        "nef": "image/x-nikon-nef", "arw": "image/x-sony-arw", "orf": "image/x-olympus-orf",
        "rw2": "image/x-panasonic-rw2", "pef": "image/x-pentax-pef", "srw": "image/x-samsung-srw",
        "raf": "image/x-fuji-raf", "erf": "image/x-epson-erf", "psd": "image/vnd.adobe.photoshop",
        // Video and audio.
        "mp4": "video/mp4", "m4v": "video/mp4", "mov": "video/quicktime", "webm": "video/webm",
        "mkv": "video/x-matroska", "avi": "video/x-msvideo", "mpg": "video/mpeg", "mpeg": "video/mpeg",
        "3gp": "video/3gpp", "mts": "video/mp2t", "ts": "video/mp2t", "mp3": "audio/mpeg", "m4a": "audio/mp4",
        "aac": "audio/aac", "wav": "audio/wav", "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/ogg",
        "flac": "audio/flac",
        // The web.
        "html": "text/html", "htm": "text/html", "css": "text/css", "js": "text/javascript",
        "mjs": "text/javascript", "json": "application/json", "map": "application/json",
        "webmanifest": "application/manifest+json", "xml": "application/xml", "wasm": "application/wasm",
        "woff": "font/woff", "woff2": "font/woff2", "ttf": "font/ttf", "otf": "font/otf",
        // Text and data.
        "txt": "text/plain", "csv": "text/csv", "tsv": "text/tab-separated-values", "md": "text/markdown",
        "yaml": "application/yaml", "yml": "application/yaml", "toml": "application/toml",
        "rtf": "application/rtf", "ics": "text/calendar", "vcf": "text/vcard",
        // Documents.
        "pdf": "application/pdf", "doc": "application/msword", "xls": "application/vnd.ms-excel",
        "ppt": "application/vnd.ms-powerpoint",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text", "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "odp": "application/vnd.oasis.opendocument.presentation", "epub": "application/epub+zip",
        // Archives and packages.
        "zip": "application/zip", "gz": "application/gzip", "tgz": "application/gzip", "tar": "application/x-tar",
        "bz2": "application/x-bzip2", "xz": "application/x-xz", "zst": "application/zstd",
        "7z": "application/x-7z-compressed", "rar": "application/vnd.rar", "jar": "application/java-archive",
        "apk": "application/vnd.android.package-archive", "xpi": "application/x-xpinstall",
        "kmz": "application/vnd.google-earth.kmz", "kml": "application/vnd.google-earth.kml+xml",
        "gpx": "application/gpx+xml",
    ]
}
