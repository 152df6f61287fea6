/// One file to upload, as the scanner found it.
public struct UploadItem: Sendable, Hashable, Identifiable {
    /// Position in input order; results are reported in this order.
    public let id: Int
    /// Absolute path on disk.
    public let path: String
    /// Path relative to the folder argument (the file name for a file argument); used as the remote name.
    public let relativePath: String
    /// Size in bytes when scanned.
    public let size: Int64
    /// Modification time when scanned, seconds since 1970.
    public let modified: Double
    /// MIME type from magic bytes, else the extension, else `application/octet-stream`.
    public let contentType: String
    /// Why the file cannot be read, when the scanner already knows; such an item fails without a request.
    public let unreadableReason: String?
    /// Why the file is not uploaded at all (a symbolic link not followed); such an item ends `skipped`.
    public let skipReason: String?
    /// A folder the scan could not list: with `unreadableReason`, it fails as a folder, not as a file.
    public let isFolder: Bool
    /// The type its first bytes say, nil when they say nothing known (the dataset rules go by this).
    public let sniffedType: String?
    /// The file the scan found at `path`; nil for a file made since (a prepared image). Sending checks that the
    /// path still holds it.
    public let identity: FileIdentity?
    /// For a prepared copy, the scanned file it was made from and how: its `Idempotency-Key` comes from these, so
    /// it repeats on a retry and a rerun, as a file sent as it is does. Nil for a file sent as scanned.
    public let preparedFrom: PreparedOrigin?
    /// How many times a stored copy of this file was found wrong (`--verify`). Each time it goes under a fresh
    /// `Idempotency-Key`: the server's answer to the old one is the wrong copy, or a refusal of other bytes.
    public var keyRenewal: Int

    /// Creates an item.
    public init(
        id: Int, path: String, relativePath: String, size: Int64, modified: Double, contentType: String,
        unreadableReason: String? = nil, skipReason: String? = nil, sniffedType: String? = nil,
        identity: FileIdentity? = nil, preparedFrom: PreparedOrigin? = nil, isFolder: Bool = false,
        keyRenewal: Int = 0
    ) {
        self.id = id
        self.path = path
        self.relativePath = relativePath
        self.size = size
        self.modified = modified
        self.contentType = contentType
        self.unreadableReason = unreadableReason
        self.skipReason = skipReason
        self.sniffedType = sniffedType
        self.identity = identity
        self.preparedFrom = preparedFrom
        self.isFolder = isFolder
        self.keyRenewal = keyRenewal
    }

    /// What an item the scan could not read fails with, without a request: `cannot read file`, or `cannot list
    /// folder` for a folder; nil for an item that can be sent.
    public var scanFailure: UploadError? {
        unreadableReason.map {
            UploadError(isFolder ? .folderUnlistable : .fileUnreadable, file: relativePath, cause: $0)
        }
    }

    /// The same item, not to be uploaded, for `reason`.
    public func skipped(_ reason: String) -> UploadItem {
        UploadItem(
            id: id, path: path, relativePath: relativePath, size: size, modified: modified, contentType: contentType,
            unreadableReason: unreadableReason, skipReason: reason, sniffedType: sniffedType, identity: identity,
            preparedFrom: preparedFrom, isFolder: isFolder, keyRenewal: keyRenewal)
    }
}

extension UploadItem {
    /// The items with ids 0, 1, 2… in their order, for a run over part of a scan.
    public static func renumbered(_ items: [UploadItem]) -> [UploadItem] {
        items.enumerated().map { index, item in
            UploadItem(
                id: index, path: item.path, relativePath: item.relativePath, size: item.size, modified: item.modified,
                contentType: item.contentType, unreadableReason: item.unreadableReason,
                skipReason: item.skipReason, sniffedType: item.sniffedType, identity: item.identity,
                preparedFrom: item.preparedFrom, isFolder: item.isFolder, keyRenewal: item.keyRenewal)
        }
    }
}

/// The original of a prepared copy, as scanned, and the preparation that made the copy.
public struct PreparedOrigin: Sendable, Hashable {
    public let path: String
    public let size: Int64
    public let modified: Double
    /// The options and encoding that change the copy's bytes ("max-dimension=1600,quality=80 smallest").
    public let preparation: String

    /// Creates an origin.
    public init(path: String, size: Int64, modified: Double, preparation: String) {
        self.path = path
        self.size = size
        self.modified = modified
        self.preparation = preparation
    }
}

/// A file's device and inode: which file a path named when it was scanned.
public struct FileIdentity: Sendable, Hashable {
    public let device: UInt64
    public let inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}
