import Foundation
import NIOConcurrencyHelpers

/// In-memory state of the presigned-URL object store: each object's content type and ETag, and
/// which filenames have had a ticket (for the `presignExpiredTickets` test hook).
///
/// The bytes themselves live on disk under `<root>/objects/<key>`; metadata is not persisted, so
/// after a restart an object found on disk is served as `application/octet-stream` with an ETag
/// recomputed from its bytes.
final class ObjectStore: Sendable {
    struct Metadata: Sendable, Equatable {
        /// `Content-Type` the object was uploaded with.
        var contentType: String
        /// Quoted ETag, e.g. `"9e107d9d372bb6826bd81d3542a419d6"` (MD5 of the bytes).
        var etag: String
    }

    private struct State {
        var metadata: [String: Metadata] = [:]
        var ticketedFilenames: Set<String> = []
    }

    private let state = NIOLockedValueBox(State())

    /// Renames a finished upload into place and records its metadata in one step, so concurrent
    /// uploads to the same key cannot leave the bytes of one with the metadata of another.
    func commit(_ sink: FileSink, key: String, metadata: Metadata) throws -> String {
        try state.withLockedValue { state in
            let sha256 = try sink.commit()
            state.metadata[key] = metadata
            return sha256
        }
    }

    /// Metadata recorded for `key`, if it was uploaded since the server started.
    func metadata(for key: String) -> Metadata? {
        state.withLockedValue { $0.metadata[key] }
    }

    /// Caches metadata reconstructed for an object found on disk; keeps any entry already there.
    func remember(_ metadata: Metadata, for key: String) -> Metadata {
        state.withLockedValue { state in
            if let existing = state.metadata[key] { return existing }
            state.metadata[key] = metadata
            return metadata
        }
    }

    /// Deletes the file at `path` and forgets `key`'s metadata, atomically with respect to commits.
    func remove(key: String, path: String) throws {
        try state.withLockedValue { state in
            try FileManager.default.removeItem(atPath: path)
            state.metadata[key] = nil
        }
    }

    /// Returns true the first time it is called for `filename`, false afterwards.
    func isFirstTicket(for filename: String) -> Bool {
        state.withLockedValue { $0.ticketedFilenames.insert(filename).inserted }
    }
}
