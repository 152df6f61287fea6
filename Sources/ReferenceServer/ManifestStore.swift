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
/// all datasets is plenty for a reference server.
actor ManifestStore {
    /// Merges `records` into the dataset's manifest and rewrites it atomically (temp + rename).
    func merge(_ records: [StoredFileRecord], datasetID: String, directory: String) throws {
        let path = directory + "/manifest.json"
        var manifest = DatasetManifest(datasetID: datasetID, files: [:])
        if let data = FileManager.default.contents(atPath: path),
            let existing = try? JSONDecoder().decode(DatasetManifest.self, from: data)
        {
            // A corrupt manifest is replaced rather than failing every later upload.
            manifest = existing
        }
        for record in records {
            manifest.files[record.path] = record
        }
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
