import Foundation

struct TestFailure: Error, CustomStringConvertible {
    let description: String
}

/// Checks `condition` every few milliseconds until it holds; throws after `timeout`.
func waitUntil(
    _ what: String, timeout: Duration = .seconds(60), _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure(description: "timed out waiting for \(what)") }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// Parses NDJSON output into objects.
func ndjson(_ output: String) throws -> [[String: Any]] {
    try output.split(separator: "\n").map { line in
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
    }
}

/// The absolute paths the journal at `path` records as done, read with Python's sqlite3 (an outside reader).
func journalDonePaths(_ path: String) async throws -> Set<String> {
    let script = """
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        for (path,) in db.execute("SELECT path FROM files WHERE phase = 'done'"):
            print(path)
        """
    let outcome = try await ChildProcess.run("/usr/bin/env", ["python3", "-c", script, path])
    guard outcome.status == 0 else { throw TestFailure(description: "reading the journal: \(outcome.standardError)") }
    return Set(outcome.standardOutput.split(separator: "\n").map(String.init))
}
