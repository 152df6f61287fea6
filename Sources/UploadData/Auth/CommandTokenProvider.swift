import Foundation
import Synchronization
import UploadDomain

/// `--token-command CMD`: runs CMD with `/bin/sh -c`; its standard output, trimmed, is the new token.
public struct CommandTokenProvider: TokenProvider {
    public let command: String
    /// Seconds the command may take.
    public let timeout: Double

    /// Creates a provider for `command`.
    public init(command: String, timeout: Double = 30) {
        self.command = command
        self.timeout = timeout
    }

    public func freshToken(replacing stale: String?) async throws(UploadError) -> String {
        // A run stopped meanwhile (Ctrl-C) does not wait for the command: it is killed, as at its deadline.
        let stopped = Atomic<Bool>(false)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Process waits by blocking; keep that off the cooperative pool.
                Thread { continuation.resume(returning: run(cancelled: { stopped.load(ordering: .relaxed) })) }.start()
            }
        } onCancel: {
            stopped.store(true, ordering: .relaxed)
        }
        return try outcome.get()
    }

    private func run(cancelled: () -> Bool) -> Result<String, UploadError> {
        let outcome: ShellCommand.Outcome
        do {
            outcome = try ShellCommand.run(command, timeout: timeout, cancelled: cancelled)
        } catch {
            return .failure(Self.failure("cannot run the token command: \(error.reason)"))
        }
        if outcome.ending == .cancelled { return .failure(UploadError(.cancelled)) }
        guard case .exited(0) = outcome.ending else {
            let excerpt = Sanitizer.displayName(
                String(decoding: outcome.standardError.prefix(200), as: UTF8.self)
                    .trimmingCharacters(in: .whitespacesAndNewlines))
            let status =
                switch outcome.ending {
                case .exited(let code): "exit \(code)"
                case .signalled(let signal): "killed by signal \(signal)"
                case .timedOut: "killed after \(String(format: "%g", timeout)) s"
                case .cancelled: "stopped"
                }
            let detail = excerpt.isEmpty ? "" : ": \(excerpt)"
            return .failure(Self.failure("the token command failed (\(status))" + detail))
        }
        let token = String(decoding: outcome.standardOutput.prefix(65536), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        // Control characters (a NUL would cut libcurl's header line short) make no token either.
        guard !token.isEmpty, !token.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else {
            return .failure(Self.failure("the token command printed no single token"))
        }
        return .success(token)
    }

    static func failure(_ cause: String) -> UploadError {
        UploadError(.unauthorized, cause: "token refresh failed: " + cause)
    }
}
