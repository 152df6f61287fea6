import Foundation

extension ChildProcess {
    /// Runs the built `uploader-tui` as a user whom file modes stop: this one, or nobody (65534) through `setpriv`
    /// when the tests run as root, which reads and lists whatever the modes say.
    ///
    /// Nobody cannot write the child's default journal: give `--no-resume` or a journal it may write.
    static func runUnprivileged(
        _ arguments: [String], environment: [String: String] = [:]
    ) async throws -> Outcome {
        guard getuid() == 0 else { return try await run(uploaderBinary, arguments, environment: environment) }
        // A copy nobody may run: the build folder may be closed to it.
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("uploader-tui-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: uploaderBinary, toPath: copy.path)
        defer { try? FileManager.default.removeItem(at: copy) }
        chmod(copy.path, 0o755)
        return try await run(
            "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", copy.path] + arguments,
            environment: environment)
    }
}
