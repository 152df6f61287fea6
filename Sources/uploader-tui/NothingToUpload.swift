import Foundation
import UploadDomain
import UploaderCLI

/// Nothing to upload: exit 3.
struct NothingToUpload: Error, CustomStringConvertible {
    let description: String
    /// The folders' entries the scan left out, which NDJSON still accounts for.
    var leftOut: [LeftOutEntry] = []
    /// `--results`: written with no file, so a script does not read an earlier run's outcomes as this one's.
    var results: ResultsFile.Target?

    /// Writes the results file with no file in it (not for a dry run, which writes none); a failure is said.
    func writeResults(for upload: UploadCommand) {
        guard let results, !upload.dryRun else { return }
        do {
            try ResultsFile.write([], to: results)
        } catch {
            let name = Sanitizer.displayName(results.path)
            FileHandle.standardError.write(Data("uploader-tui: --results \(name): cannot write: \(error)\n".utf8))
        }
    }

    /// With `--json`, what every run writes on stdout, though nothing is sent: the entries left out and a summary
    /// with the exit code (with `--dry-run`, the dry run's summary), so a script reads why from NDJSON alone.
    func writeNDJSON(for upload: UploadCommand, exitCode: Int32) async {
        if upload.dryRun {
            let lines = DryRunReport.lines([], leftOut: leftOut, violations: [], json: true, exitCode: exitCode)
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
            return
        }
        // The width was checked with the other options, before the scan.
        let width = (try? upload.concurrencyWidth()) ?? nil
        await HeadlessReporter(json: true).nothingToSend(
            concurrency: width ?? ConcurrencyTuner.initialWidth, auto: width == nil, leftOut: leftOut,
            // Its first line: the lines after it name the entries left out, which the events do too.
            reason: String(description.prefix { $0 != "\n" }), exitCode: exitCode)
    }
}
