import Foundation
import Testing

struct TestFailure: Error, CustomStringConvertible {
    let description: String
}

/// Checks `condition` every few milliseconds until it holds; throws after `timeout`.
func waitUntil(
    _ what: String, timeout: Duration = .seconds(60), every interval: Duration = .milliseconds(5),
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TestFailure(description: "timed out waiting for \(what)") }
        try await Task.sleep(for: interval)
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
    Set(try await journalQuery(path, "SELECT path FROM files WHERE phase = 'done'"))
}

/// The rows of a one-column query on the journal at `path`, as text.
func journalQuery(_ path: String, _ query: String) async throws -> [String] {
    let script = """
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        for (value,) in db.execute(sys.argv[2]):
            print(value)
        """
    let outcome = try await ChildProcess.run("/usr/bin/env", ["python3", "-c", script, path, query])
    guard outcome.status == 0 else { throw TestFailure(description: "reading the journal: \(outcome.standardError)") }
    return outcome.standardOutput.split(separator: "\n").map(String.init)
}

/// Runs the binary on one small file with `arguments` and expects a usage error: exit 2, exactly
/// `uploader-tui: message`, and no request at the server.
func expectRefused(_ arguments: [String], message: String, sourceLocation: SourceLocation = #_sourceLocation)
    async throws
{
    let server = try await ServerFixture.start()
    let folder = try TestFolder("refused")
    try folder.write("a.jpg", size: 100, seed: 1)
    let run = try await ChildProcess.run(
        ChildProcess.uploaderBinary,
        [folder.path, "--put", server.url("/files/x/"), "--no-tui", "--no-resume"] + arguments)
    #expect(run.status == 2, sourceLocation: sourceLocation)
    #expect(run.standardError == "uploader-tui: \(message)\n", "\(run.standardError)", sourceLocation: sourceLocation)
    #expect(await server.server.statistics.requests == 0, sourceLocation: sourceLocation)
    await server.stop()
}
