/// Keeps each file's outcome across runs, so a rerun skips what is done and resumes the rest (issue 5).
///
/// `record` returns at once: an implementation batches writes off the caller's thread. Nothing in it
/// may be lost once `flush` returns, and a kill at any moment leaves it valid.
public protocol UploadJournal: Sendable {
    /// What earlier runs left for these files at their destinations (absent: never seen, or changed since).
    func priorOutcomes(of items: [UploadItem], destinations: [String]) -> [Int: JournalEntry.PriorOutcome]
    /// The `keyRenewal` earlier runs left for these files at their destinations, where it is not 0: a file whose
    /// stored copy was found wrong is sent under a fresh key until it is done, by every run after.
    func keyRenewals(of items: [UploadItem], destinations: [String]) -> [Int: Int]
    /// Notes one file's change of phase.
    func record(_ entry: JournalEntry)
    /// Writes everything recorded so far and returns once it is on disk.
    func flush()
    /// Ends the run: writes its counts and releases the journal.
    func close(counts: PhaseCounts)
}

extension UploadJournal {
    /// A journal that keeps no renewals has none to give.
    public func keyRenewals(of items: [UploadItem], destinations: [String]) -> [Int: Int] { [:] }
}

/// One file's change, as the journal stores it.
public struct JournalEntry: Sendable {
    /// What happened to the file.
    public enum Outcome: Sendable {
        case started
        case done(UploadResult?)
        case failed(UploadError)
        case cancelled
    }

    /// What an earlier run ended with for a file still the same (path, size, mtime) going to the same place.
    public enum PriorOutcome: Sendable, Equatable {
        case done
        /// Failed, cancelled or cut off by a kill: sent before and not finished.
        case failed
    }

    public var item: UploadItem
    /// The file's destination as the planner names it (URL or S3 key; never a secret).
    public var destination: String
    public var attempt: Int
    public var outcome: Outcome

    /// Creates an entry.
    public init(item: UploadItem, destination: String, attempt: Int, outcome: Outcome) {
        self.item = item
        self.destination = destination
        self.attempt = attempt
        self.outcome = outcome
    }
}

/// A finished part of an S3 multipart upload.
public struct FinishedPart: Sendable, Equatable {
    public var etag: String
    /// The part's checksum as sent (base64), when its upload names a checksum algorithm.
    public var checksum: String?

    public init(etag: String, checksum: String? = nil) {
        self.etag = etag
        self.checksum = checksum
    }
}

/// An S3 multipart upload an earlier run began and did not end.
public struct UnfinishedUpload: Sendable, Equatable {
    public var uploadID: String
    /// The file's size and mtime when the upload began: its parts hold those bytes.
    public var size: Int64
    public var modified: Double
    /// The part size its parts were cut by; nil for one an older version began without noting it.
    public var partSize: Int64?
    /// The checksum algorithm the upload was created with (`CRC32`; `SHA256` before); nil for one created without.
    public var checksumAlgorithm: String?
    /// Its finished parts by number.
    public var parts: [Int: FinishedPart]

    public init(
        uploadID: String, size: Int64, modified: Double, partSize: Int64?, checksumAlgorithm: String?,
        parts: [Int: FinishedPart]
    ) {
        self.uploadID = uploadID
        self.size = size
        self.modified = modified
        self.partSize = partSize
        self.checksumAlgorithm = checksumAlgorithm
        self.parts = parts
    }

    /// Whether its parts can finish `item` cut by `partSize` with `checksumAlgorithm`: parts of another cut or of
    /// other bytes would complete into a different object, and S3 fixes the algorithm when the upload is created.
    public func continues(_ item: UploadItem, partSize: Int64, checksumAlgorithm: String) -> Bool {
        size == item.size && modified == item.modified && self.partSize == partSize
            && self.checksumAlgorithm == checksumAlgorithm
    }
}

/// Where an S3 multipart upload stands, so a later run continues it from its finished parts.
public protocol MultipartCheckpoints: Sendable {
    /// The unfinished uploads earlier runs left for this file and key, newest first, whatever the file is now.
    func unfinishedUploads(of item: UploadItem, key: String) -> [UnfinishedUpload]
    /// Notes that an upload began, its parts cut by `partSize`, created with `checksumAlgorithm` (nil: none).
    func uploadBegan(_ uploadID: String, item: UploadItem, key: String, partSize: Int64, checksumAlgorithm: String?)
    /// Notes one finished part.
    func partFinished(uploadID: String, number: Int, part: FinishedPart)
    /// Forgets the upload once completed or aborted.
    func uploadEnded(_ uploadID: String)
    /// Every upload kept for a later run, whichever file and key: a run sends some of their files, and must settle
    /// the rest (`S3Planner.settleKeptUploads`).
    func keptUploads() -> [KeptUpload]
}

extension MultipartCheckpoints {
    /// Checkpoints that list nothing keep nothing to settle.
    public func keptUploads() -> [KeptUpload] { [] }
}

/// An unfinished S3 multipart upload the journal keeps, with the file and key it was begun for.
public struct KeptUpload: Sendable, Equatable {
    public var uploadID: String
    /// The file's absolute path.
    public var path: String
    /// The key it is noted under: the planner's journal destination.
    public var key: String

    public init(uploadID: String, path: String, key: String) {
        self.uploadID = uploadID
        self.path = path
        self.key = key
    }
}
