import Foundation

/// The content of `<root>/datasets/<id>/manifest.json`.
struct DatasetManifest: Codable, Equatable, Sendable {
    /// The sanitised dataset id.
    var datasetID: String
    /// Every file ever stored in the dataset, keyed by its root-relative storage path; a re-upload
    /// of the same path replaces the entry.
    var files: [String: StoredFileRecord]
}

/// Serialises read-merge-write cycles on dataset manifests.
///
/// Concurrent uploads to the same dataset would otherwise race and lose entries; one actor for
/// all datasets is plenty for a reference server. Manifests stay in memory once read. A small one is
/// rewritten before the upload is answered; a large one (thousands of files) at most every quarter
/// second, or ten times as long as its last rewrite took (two seconds at most), and when the server
/// stops: a large dataset costs neither a rewrite of every entry per upload nor most of the actor's
/// time.
actor ManifestStore {
    static let immediateLimit = 512
    private var cache: [String: DatasetManifest] = [:]
    private var dirty: Set<String> = []
    private var flushTask: Task<Void, Never>?
    /// How long the last flush took, which spaces the next.
    private var lastFlush: Duration = .zero

    /// Merges `records` into the dataset's manifest and rewrites it atomically (temp + rename).
    func merge(_ records: [StoredFileRecord], datasetID: String, directory: String) throws {
        // Taken out of the cache while it changes, so the dictionary is changed in place, not copied.
        var manifest =
            cache.removeValue(forKey: directory) ?? Self.load(directory)
            ?? DatasetManifest(datasetID: datasetID, files: [:])
        for record in records {
            manifest.files[record.path] = record
        }
        cache[directory] = manifest
        guard manifest.files.count > Self.immediateLimit else {
            try Self.write(manifest, to: directory)
            return
        }
        dirty.insert(directory)
        if flushTask == nil {
            let wait = min(max(.milliseconds(250), lastFlush * 10), .seconds(2))
            flushTask = Task {
                try? await Task.sleep(for: wait)
                self.flush()
            }
        }
    }

    /// Writes every manifest changed since its last write.
    func flush() {
        flushTask = nil
        let started = ContinuousClock.now
        for directory in dirty {
            if let manifest = cache[directory] { try? Self.write(manifest, to: directory) }
        }
        dirty.removeAll()
        lastFlush = ContinuousClock.now - started
    }

    private static func load(_ directory: String) -> DatasetManifest? {
        // A corrupt manifest is replaced rather than failing every later upload.
        guard let data = FileManager.default.contents(atPath: directory + "/manifest.json") else { return nil }
        return try? JSONDecoder().decode(DatasetManifest.self, from: data)
    }

    private static func write(_ manifest: DatasetManifest, to directory: String) throws {
        let path = directory + "/manifest.json"
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(manifest)
        let temporary = directory + "/.manifest-" + UUID().uuidString + ".json"
        do {
            try data.write(to: URL(fileURLWithPath: temporary))
            // rename(2) replaces atomically; readers never see a half-written manifest.
            guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw ReferenceServerError(.storageFailed, "cannot write manifest")
        }
    }

    /// Reads a dataset manifest (used by tests and tooling).
    func read(directory: String) -> DatasetManifest? {
        guard let data = FileManager.default.contents(atPath: directory + "/manifest.json") else { return nil }
        return try? JSONDecoder().decode(DatasetManifest.self, from: data)
    }
}
