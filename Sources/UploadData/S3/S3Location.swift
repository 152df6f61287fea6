/// A destination of the form `s3://bucket/prefix`: the bucket, and the key prefix uploads go under.
public struct S3Location: Sendable, Equatable {
    /// The bucket name, validated against S3's naming rules.
    public let bucket: String
    /// The key prefix exactly as written after `bucket/` (possibly empty); not percent-decoded, since S3
    /// keys are plain strings.
    public let prefix: String

    /// Parses `s3://bucket`, `s3://bucket/` or `s3://bucket/some/prefix/`.
    /// - Parameter url: The destination as the user typed it.
    /// - Throws: `S3Error` with `.invalidS3URL` when it is not an `s3://` URL or names no bucket, and
    ///   `.invalidBucketName` when the bucket breaks S3's naming rules.
    public init(url: String) throws(S3Error) {
        guard url.lowercased().hasPrefix("s3://") else {
            let hint =
                url.contains("://")
                ? "; give the bucket as s3://bucket/prefix and a custom S3 host with --endpoint-url" : ""
            throw S3Error(.invalidS3URL, context: url, reason: "not an s3:// URL; write s3://bucket/prefix\(hint)")
        }
        let rest = url.dropFirst(5)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let bucket = String(rest[..<slash])
        guard !bucket.isEmpty else {
            throw S3Error(.invalidS3URL, context: url, reason: "names no bucket; write s3://bucket/prefix")
        }
        if let problem = Self.bucketNameProblem(bucket) {
            throw S3Error(.invalidBucketName, context: url, reason: "bucket name '\(bucket)' \(problem)")
        }
        self.bucket = bucket
        self.prefix = slash < rest.endIndex ? String(rest[rest.index(after: slash)...]) : ""
    }

    /// The location written back as `s3://bucket/prefix`.
    public var url: String { "s3://\(bucket)/\(prefix)" }

    /// The object key for a file at `relativePath` under this location, treating the prefix as a folder:
    /// `s3://b/photos` and `s3://b/photos/` both put `a.jpg` at `photos/a.jpg`.
    /// - Parameter relativePath: A `/`-separated path relative to the upload root.
    /// - Returns: The full key.
    public func key(for relativePath: String) -> String {
        guard !prefix.isEmpty else { return relativePath }
        return prefix.hasSuffix("/") ? prefix + relativePath : prefix + "/" + relativePath
    }

    /// Why `name` is not a valid general-purpose bucket name, or nil when it is.
    static func bucketNameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        guard (3...63).contains(bytes.count) else { return "must be 3 to 63 characters long" }
        let allowed = bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
        guard allowed else {
            return "may only contain lowercase letters, digits, '.' and '-' (no capitals or underscores)"
        }
        let isAlphanumeric = { (byte: UInt8) in byte != UInt8(ascii: ".") && byte != UInt8(ascii: "-") }
        guard isAlphanumeric(bytes.first!), isAlphanumeric(bytes.last!) else {
            return "must begin and end with a letter or digit"
        }
        guard !name.contains("..") else { return "must not contain two adjacent periods" }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        if labels.count == 4, labels.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isNumber) }) {
            return "must not look like an IP address"
        }
        guard !name.hasPrefix("xn--"), !name.hasPrefix("sthree-") else {
            return "must not begin with 'xn--' or 'sthree-'"
        }
        guard !name.hasSuffix("-s3alias"), !name.hasSuffix("--ol-s3") else {
            return "must not end with '-s3alias' or '--ol-s3'"
        }
        return nil
    }
}
