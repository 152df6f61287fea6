import ArgumentParser
import Foundation
import RunService
import UploadDomain
import UploaderCLI

/// `uploader-tui stop RUN`: stops a run as `C` on its screen does, and waits until it has.
struct StopCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stop",
        abstract: "Stop a run as C on its screen does: nothing new starts, the uploads in flight get --grace.",
        discussion: """
            Exit codes: 0 stopped (or already stopping; it waits the same), 2 usage, 4 no such run (unknown, ended, \
            or killed), 5 refused (another user's run, another protocol version).
            """)

    @Argument(
        help: ArgumentHelp("The run's ID, as `ps` lists it.", valueName: "run"),
        completion: .custom { _, _, _ in RunLookup.completing(includingUnseenEnds: false) })
    var run: String

    func execute(environment: [String: String]) async throws -> ExitStatus {
        let id = try RunLookup.checked(run)
        let directory = RunDirectory(environment: environment)
        let client: RunClient
        do {
            try directory.check()
            if let record = RunRecord.read(id, in: directory), record.hasEnded {
                throw RunServiceError(.ended, id: id, detail: RunLookup.ending(record))
            }
            if let problem = RunLookup.gone(id, in: directory) { throw problem }
            client = try await RunClient.connect(id: id, in: directory, role: .control)
        } catch let error as RunServiceError {
            // Another stop ended it while this one connected: stopped all the same.
            if error.code != .ended, let ended = endedMeanwhile(id, directory) { return stopped(id, ended) }
            return AttachedScreen.fail(error)
        }
        await client.waitForSnapshot()
        if client.latest?.stopping != nil {
            FileHandle.standardError.write(Data("uploader-tui: run \(id) is already stopping; waiting for it\n".utf8))
        }
        client.send(.stop)
        await client.waitUntilIdle()
        client.detach()
        if let snapshot = client.latest, snapshot.isIdle {
            return stopped(id, client.info.updated(from: snapshot))
        }
        if let ended = endedMeanwhile(id, directory) { return stopped(id, ended) }
        return AttachedScreen.fail(RunServiceError(.lost, id: id, detail: "its process ended while stopping"))
    }

    /// How a run that has ended since this command began ended.
    private func endedMeanwhile(_ id: String, _ directory: RunDirectory) -> RunInfo? {
        guard let record = RunRecord.read(id, in: directory), record.hasEnded else { return nil }
        return record.info
    }

    private func stopped(_ id: String, _ run: RunInfo) -> ExitStatus {
        let files = run.files == 1 ? "1 file" : "\(run.files) files"
        print(
            "stopped run \(id): \(files): \(run.done) done, \(run.failed) failed, \(run.cancelled) cancelled, "
                + "\(run.skipped) skipped")
        return .success
    }
}
