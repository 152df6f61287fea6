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
        let outcome = await withCheckedContinuation { continuation in
            // Process waits by blocking; keep that off the cooperative pool.
            Thread { continuation.resume(returning: run()) }.start()
        }
        return try outcome.get()
    }

    private func run() -> Result<String, UploadError> {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .failure(Self.failure("cannot run the token command: \(error.localizedDescription)"))
        }
        let deadline = DispatchTime.now() + timeout
        let timer = DispatchSource.makeTimerSource()
        timer.schedule(deadline: deadline)
        timer.setEventHandler { process.terminate() }
        timer.resume()
        // Both pipes drain at once, so a command that writes much to one cannot block on it.
        let errorText = Mutex(Data())
        let drained = DispatchSemaphore(value: 0)
        Thread {
            errorText.withLock { $0 = errors.fileHandleForReading.readDataToEndOfFile() }
            drained.signal()
        }.start()
        let stdout = output.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        let stderr = errorText.withLock { $0 }
        process.waitUntilExit()
        timer.cancel()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            let excerpt = Sanitizer.displayName(
                String(decoding: stderr.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            let status =
                process.terminationReason == .exit
                ? "exit \(process.terminationStatus)" : "killed after \(String(format: "%g", timeout)) s"
            return .failure(Self.failure("the token command failed (\(status))" + (excerpt.isEmpty ? "" : ": \(excerpt)")))
        }
        let token = String(decoding: stdout.prefix(65536), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
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
