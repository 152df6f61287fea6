import ArgumentParser
import Foundation
import UploadData
import UploadDomain
import UploaderCLI

/// `uploader-tui history`: recent runs from the journal, with their counts and failed files.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history", abstract: "List recent runs from the journal with their counts and failed files.")

    @Option(
        help: ArgumentHelp(
            "The journal (default $XDG_STATE_HOME/uploader-tui/journal.sqlite).", valueName: "path"),
        completion: .file())
    var journal: String?

    @Option(parsing: .unconditional, help: "Runs to list, newest first.")
    var limit = 10

    /// Prints one block per run; exit 2 when the journal cannot be read.
    func execute() throws -> ExitStatus {
        guard limit >= 1 else {
            throw UsageError(description: "--limit takes a number of runs, 1 or more, not \(limit)")
        }
        let environment = ProcessInfo.processInfo.environment
        let path = FileScanner.absolute(
            journal ?? SQLiteJournal.defaultPath(environment: environment), environment: environment)
        guard FileManager.default.fileExists(atPath: path) else {
            print("no runs yet (no journal at \(Sanitizer.displayName(path)))")
            return .success
        }
        let runs: [RunSummary]
        do {
            runs = try SQLiteJournal.history(path: path, limit: limit)
        } catch {
            // History reads the journal whatever --no-resume would do: that is no way out here.
            throw UsageError(description: error.description(offeringNoResume: false))
        }
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        // Only the newest run to a destination can still be going, and only while it holds that destination.
        var newest = Set<String>()
        let running = Set(
            runs.filter {
                newest.insert($0.destination).inserted && $0.endedAt == nil
                    && SQLiteJournal.isInUse(path: path, destination: $0.destination)
            }.map(\.id))
        for run in runs {
            let counts = run.counts
            var line = "run \(run.id)  \(formatter.string(from: run.startedAt))  "
            line +=
                "\(counts.done) done, \(counts.failed) failed, \(counts.cancelled) cancelled, \(counts.skipped) skipped"
            if run.endedAt == nil { line += running.contains(run.id) ? "  (running)" : "  (did not finish)" }
            print(line)
            print("  " + Sanitizer.displayName(run.arguments))
            for failure in run.failures {
                print("  failed  " + Sanitizer.displayName(failure.path) + ": " + Sanitizer.displayName(failure.error))
            }
        }
        if runs.isEmpty { print("no runs yet") }
        return .success
    }
}
