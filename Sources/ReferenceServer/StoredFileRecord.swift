/// One stored file as reported in the `201` body of `POST /datasets/{id}/images` and kept in the
/// dataset's `manifest.json`.
struct StoredFileRecord: Codable, Equatable, Sendable {
    /// Name of the multipart field the file came in.
    var field: String
    /// The filename exactly as the client sent it (before sanitising).
    var filename: String
    /// Storage path relative to the server root, e.g. `datasets/<id>/sub/cat.jpg` (never a URL).
    var path: String
    /// Bytes stored.
    var size: Int
    /// Lowercase hex SHA-256 of the stored bytes.
    var sha256: String
    /// The part's `Content-Type` (`application/octet-stream` when the part had none).
    var contentType: String
    /// Detected image type, or nil.
    var signature: String?
    /// Pixel width, or nil when unknown.
    var width: Int?
    /// Pixel height, or nil when unknown.
    var height: Int?
    /// The image carries an EXIF block / a GPS location in it; its orientation tag (JPEG only, else false/nil).
    var exif: Bool
    var gps: Bool
    var orientation: Int?

    private enum CodingKeys: String, CodingKey {
        case field, filename, path, size, sha256, contentType, signature, width, height, exif, gps, orientation
    }

    init(field: String, filename: String, path: String, contentType: String, report: ImageReport) {
        self.field = field
        self.filename = filename
        self.path = path
        self.size = report.size
        self.sha256 = report.sha256
        self.contentType = contentType
        self.signature = report.signature
        self.width = report.width
        self.height = report.height
        self.exif = report.exif != nil
        self.gps = report.exif?.hasGPS ?? false
        self.orientation = report.exif?.orientation
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        field = try container.decode(String.self, forKey: .field)
        filename = try container.decode(String.self, forKey: .filename)
        path = try container.decode(String.self, forKey: .path)
        size = try container.decode(Int.self, forKey: .size)
        sha256 = try container.decode(String.self, forKey: .sha256)
        contentType = try container.decode(String.self, forKey: .contentType)
        signature = try container.decodeIfPresent(String.self, forKey: .signature)
        width = try container.decodeIfPresent(Int.self, forKey: .width)
        height = try container.decodeIfPresent(Int.self, forKey: .height)
        // Manifests written before these fields existed read as "no EXIF".
        exif = try container.decodeIfPresent(Bool.self, forKey: .exif) ?? false
        gps = try container.decodeIfPresent(Bool.self, forKey: .gps) ?? false
        orientation = try container.decodeIfPresent(Int.self, forKey: .orientation)
    }

    /// Always writes `signature`/`width`/`height`, as `null` when unknown: clients get a fixed
    /// shape instead of keys that come and go (the synthesised encoder would omit them).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(field, forKey: .field)
        try container.encode(filename, forKey: .filename)
        try container.encode(path, forKey: .path)
        try container.encode(size, forKey: .size)
        try container.encode(sha256, forKey: .sha256)
        try container.encode(contentType, forKey: .contentType)
        try container.encode(signature, forKey: .signature)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(exif, forKey: .exif)
        try container.encode(gps, forKey: .gps)
        try container.encode(orientation, forKey: .orientation)
    }
}

/// Body of a successful `POST /datasets/{id}/images`.
struct ImageUploadResponse: Codable, Equatable, Sendable {
    /// The sanitised dataset id.
    var datasetID: String
    /// Stored files in the order their parts arrived.
    var files: [StoredFileRecord]
    /// Non-file form fields.
    var fields: [String: String]
}

/// Body of a successful `PUT /files/{path...}`.
struct FileUploadResponse: Codable, Equatable, Sendable {
    /// Storage path relative to the server root, e.g. `files/a/b.bin`.
    var path: String
    /// Bytes stored.
    var size: Int
    /// Lowercase hex SHA-256 of the stored bytes.
    var sha256: String
}
