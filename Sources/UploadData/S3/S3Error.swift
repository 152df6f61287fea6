import UploadDomain

/// A problem with S3 configuration: a bad `s3://` URL, an invalid bucket name, or unusable credentials.
///
/// Network and HTTP failures are reported elsewhere; this error is about input the user can fix.
public struct S3Error: Error, Sendable, Equatable {
    /// Stable identifiers for every S3 configuration failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's string form, e.g. `"invalidS3URL"`.
        public let rawValue: String
        /// Wraps a raw code string.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's string form.
        public var description: String { rawValue }

        /// The destination is not of the form `s3://bucket/prefix`.
        public static let invalidS3URL = Code(rawValue: "invalidS3URL")
        /// The bucket name breaks S3's naming rules.
        public static let invalidBucketName = Code(rawValue: "invalidBucketName")
        /// An `--endpoint-url` that is not an `http(s)://host[:port]` URL.
        public static let invalidEndpointURL = Code(rawValue: "invalidEndpointURL")
        /// Only one of `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` is set, or a profile lacks a key.
        public static let incompleteCredentials = Code(rawValue: "incompleteCredentials")
        /// `AWS_PROFILE` names a profile that the credentials file does not contain.
        public static let profileNotFound = Code(rawValue: "profileNotFound")
        /// The shared credentials file exists but cannot be read.
        public static let unreadableCredentialsFile = Code(rawValue: "unreadableCredentialsFile")
    }

    /// What went wrong.
    public var code: Code
    /// The offending input: the URL, bucket name, file path or profile name (never a secret).
    public var context: String
    /// One line saying why, with the fix when there is one.
    public var reason: String
    /// The underlying error, e.g. the file-system error for an unreadable file.
    public var underlying: (any Error)?

    /// Creates an error.
    public init(_ code: Code, context: String, reason: String, underlying: (any Error)? = nil) {
        self.code = code
        self.context = context
        self.reason = reason
        self.underlying = underlying
    }

    /// Errors are equal when code, context and reason match; the underlying cause is not compared.
    public static func == (lhs: S3Error, rhs: S3Error) -> Bool {
        lhs.code == rhs.code && lhs.context == rhs.context && lhs.reason == rhs.reason
    }
}

// MARK: - Description

extension S3Error: CustomStringConvertible {
    /// `context: reason`, one line, suitable for the user.
    public var description: String {
        var text = "\(context): \(reason)"
        if let underlying { text += " (\(underlying))" }
        // The context is often the user's (an s3:// URL, AWS_PROFILE, a credentials file's path).
        return Sanitizer.displayName(text)
    }
}
