import Foundation
import UploadData
import UploadDomain
import UploaderCLI

/// `--dry-run` (issue 16): what a run would do with each file, measured for real (images are prepared into the
/// temporary folder and removed again), with nothing sent and no run recorded in the journal.
struct DryRun {
    let plan: UploadPlan

    /// Prints the table (or NDJSON) and the summary.
    /// - Returns: `.usage` (2) when the batch breaks a rule, as the real run would stop; else `.success`.
    func run() async throws -> ExitStatus {
        let (items, prior) = try journalView()
        let prepares = !plan.imageOptions.changesNothing
        if prepares, let problem = VipsImagePreparer.libraryProblem() { throw UsageError(description: problem) }
        // Headers are read whatever the options (nil without libvips); images are prepared only when asked.
        let images = VipsImagePreparer()
        defer { images.removeTemporaryFolder() }
        var planned: [PlannedFile] = []
        for item in items {
            let header = item.skipReason == nil ? await images.inspect(item) : nil
            var preparation: Preparation?
            var failure = item.scanFailure?.summary
            var sentAs = item
            if prepares, item.skipReason == nil, failure == nil {
                do {
                    // The smallest encoding: what a run sends while the link is behind. With nothing waiting for the
                    // link, a run's JPEGs come out larger: about 8% for photos, up to about 16% for small images.
                    let prepared = try await images.prepare(item, options: plan.imageOptions, encoding: .smallest)
                    if let prepared {
                        preparation = Preparation(
                            originalSize: item.size, size: prepared.size, width: prepared.width,
                            height: prepared.height, remoteName: prepared.remoteName)
                        sentAs = UploadItem(
                            id: item.id, path: prepared.path, relativePath: prepared.remoteName, size: prepared.size,
                            modified: prepared.modified, contentType: prepared.contentType)
                        images.discard(prepared)
                        // As the run does: too large once prepared, it fails unsent.
                        failure = plan.configuration.preparedSizeError(prepared.size, file: item.relativePath)?.summary
                    }
                } catch {
                    failure = error.summary
                }
            }
            let verdict: PlannedFile.JournalVerdict =
                switch prior[item.id] {
                case .done: .skip
                case .failed: .retry
                // --retry-failed took it as unfinished: a file a killed run had not reached has no record.
                case nil: plan.retryFailed ? .retry : .new
                }
            planned.append(
                PlannedFile(
                    name: item.relativePath, type: item.contentType, width: header?.width,
                    height: header?.height, size: item.size, preparation: preparation,
                    destination: destination(of: sentAs), journal: verdict,
                    gps: header.map(\.hasLocation), skipReason: item.skipReason, error: failure))
        }
        for note in plan.notes { FileHandle.standardError.write(Data("note: \(note)\n".utf8)) }
        let status: ExitStatus = plan.violations.isEmpty ? .success : .usage
        let lines = DryRunReport.lines(
            planned, leftOut: plan.leftOut, violations: plan.violations, json: plan.json, exitCode: status.rawValue)
        FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        return status
    }

    /// The files a run would take (with `--retry-failed`, those earlier runs did not finish, as the run picks them)
    /// and what the journal says of each, read without recording a run; all files and nothing with `--no-resume`.
    private func journalView() throws -> ([UploadItem], [Int: JournalEntry.PriorOutcome]) {
        guard let opening = plan.journal else { return (plan.items, [:]) }
        let prepared: PreparedJournal?
        let journal: JournalQueries
        do {
            do {
                let opened = try opening.prepared()
                prepared = opened
                journal = opened.queries
            } catch  where error.code == .locked {
                // Another run is writing it: read it beside that run, as `history` does.
                prepared = nil
                journal = try JournalQueries.openReadOnly(path: error.path)
            }
        } catch {
            throw UsageError(description: error.description)
        }
        // A journal made for the dry run is removed again.
        defer { if let prepared { prepared.release() } else { journal.close() } }
        var items = plan.items
        do {
            if plan.retryFailed { items = try plan.unfinishedItems(in: journal) }
            let prior = try journal.priorOutcomes(
                of: items, destinations: items.map { plan.imageOptions.journalDestination(journalDestination(of: $0)) })
            return (items, prior)
        } catch let error as JournalError {
            throw UsageError(description: error.description)
        }
    }

    private func journalDestination(of item: UploadItem) -> String {
        switch plan.destinationKind {
        case .planner(let planner): planner.journalDestination(of: item)
        case .presign(let endpoint, _, _, let mediaType, _):
            PresignPlanner.journalDestination(endpoint: endpoint, mediaType: mediaType)
        }
    }

    private func destination(of item: UploadItem) -> String {
        switch plan.destinationKind {
        case .planner(let planner): planner.destination(of: item)
        case .presign(let endpoint, _, _, _, _): PresignPlanner.destination(endpoint: endpoint)
        }
    }
}
