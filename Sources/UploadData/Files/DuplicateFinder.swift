import UploadDomain

/// Finds files with the same content (`--skip-duplicates`): only files of equal size are read, each hashed with
/// XXH3-128 as the journal hashes them.
public enum DuplicateFinder {
    /// For each later file whose content equals an earlier one's, the index of that first file in `items`.
    public static func duplicates(in items: [UploadItem]) -> [Int: Int] {
        var bySize: [Int64: [Int]] = [:]
        for (index, item) in items.enumerated() where item.skipReason == nil && item.unreadableReason == nil {
            bySize[item.size, default: []].append(index)
        }
        var buffer = [UInt8](repeating: 0, count: FileHasher.chunkSize)
        var found: [Int: Int] = [:]
        for group in bySize.values where group.count > 1 {
            var firstByHash: [String: Int] = [:]
            for index in group {
                let item = items[index]
                guard let hash = hash(item, buffer: &buffer) else { continue }
                if let first = firstByHash[hash] { found[index] = first } else { firstByHash[hash] = index }
            }
        }
        return found
    }

    private static func hash(_ item: UploadItem, buffer: inout [UInt8]) -> String? {
        let job = HashJob(path: item.path, destination: "", size: item.size, modified: item.modified)
        guard let hasher = FileHasher(job) else { return nil }
        while true {
            switch hasher.step(buffer: &buffer) {
            case .more: continue
            case .finished(let contentHash): return contentHash
            case .abandoned: return nil
            }
        }
    }
}
