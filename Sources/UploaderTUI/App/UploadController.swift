import UploadDomain

/// What the screen needs from a running batch: a snapshot to draw and a way to send commands.
///
/// `UploadSession` is the real one; tests use a small in-memory controller.
public protocol UploadController: Sendable {
    /// The batch as it stands now.
    func snapshot() async -> UploadSnapshot
    /// Carries out a user's command.
    func handle(_ command: UploadCommand) async
    /// Returns once nothing is queued, running or waiting to retry, so `--exit-when-done` leaves without
    /// waiting for the next tick.
    func waitUntilIdle() async
}

extension UploadSession: UploadController {}
