/// The rows a session last handed out, and the batch's figures summed over them as rows are replaced: a snapshot
/// rebuilds only the rows that changed, so 10,000 queued files cost nothing per frame.
struct SnapshotRows {
    private(set) var rows: [FileSnapshot] = []
    private(set) var counts = PhaseCounts()
    private(set) var bytesSent: Int64 = 0
    private(set) var bytesTotal: Int64 = 0
    private(set) var bytesSaved: Int64 = 0
    private(set) var bytesCancelled: Int64 = 0

    /// All rows anew.
    mutating func reset(_ fresh: [FileSnapshot]) {
        self = SnapshotRows()
        rows = fresh
        for row in fresh { account(row, sign: 1) }
    }

    /// Row `id` replaced, its share of the figures with it.
    mutating func replace(_ id: Int, with row: FileSnapshot) {
        account(rows[id], sign: -1)
        account(row, sign: 1)
        rows[id] = row
    }

    /// Adds (`sign` 1) or takes away (-1) a row's share of the batch figures.
    private mutating func account(_ row: FileSnapshot, sign: Int64) {
        if sign > 0 { counts.add(row.phase) } else { counts.remove(row.phase) }
        if row.phase == .done, row.result?.verified != nil { counts.verified += Int(sign) }
        if row.phase == .cancelled { bytesCancelled += sign * row.size }
        guard row.phase != .skipped, row.phase != .cancelled else { return }
        // Saved by what was sent: a prepared file that then failed saved nothing.
        if let preparation = row.preparation, row.phase != .failed {
            bytesSaved += sign * (preparation.originalSize - preparation.size)
        }
        bytesTotal += sign * row.size
        // A failed file's bytes are on its row but not in the batch's sent: a bar at 100% would read as done.
        if row.phase != .failed { bytesSent += sign * row.sent }
    }
}
