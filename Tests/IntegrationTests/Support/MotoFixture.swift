import Foundation
import Testing

/// moto's S3 server as a child process on a free 127.0.0.1 port, for S3 tests against a real S3 API.
final class MotoFixture {
    let port: Int
    private let pid: pid_t
    var endpoint: String { "http://127.0.0.1:\(port)" }
    static let tool = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("s3_tool.py")
        .path
    static let environment = [
        "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "testsecret", "AWS_REGION": "us-east-1",
    ]

    /// Starts moto and waits (by polling the port, bounded) until it answers.
    /// - Parameter authAfter: with a number, moto checks signatures and IAM permissions after that many requests.
    static func start(authAfter: Int? = nil) async throws -> MotoFixture {
        // A port taken between its pick and moto's bind: another port.
        for _ in 0..<2 {
            do {
                return try await startOnce(authAfter: authAfter)
            } catch let error as POSIXError where error.code == .EADDRINUSE {
                continue
            }
        }
        return try await startOnce(authAfter: authAfter)
    }

    private static func startOnce(authAfter: Int?) async throws -> MotoFixture {
        let port = try freeLoopbackPort()
        var pid: pid_t = 0
        let words: [String] = ["/usr/bin/env", "python3", "-m", "moto.server", "-H", "127.0.0.1", "-p", String(port)]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var variables = ProcessInfo.processInfo.environment
        variables["INITIAL_NO_AUTH_ACTION_COUNT"] = authAfter.map(String.init)
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        guard posix_spawn(&pid, "/usr/bin/env", &actions, nil, argv, envp) == 0 else {
            throw POSIXError(.ENOENT)
        }
        let fixture = MotoFixture(port: port, pid: pid)
        // Importing moto takes seconds alone; with the whole suite on two cores, far longer.
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            // moto's own API: readiness checks must not count as AWS requests (see authAfter). The port was free
            // when picked, but another test's server may have taken it before moto could: the answer must be
            // moto's (its Werkzeug server), and moto still running.
            let probe = try await ChildProcess.run(
                "/usr/bin/curl", ["-sf", "-D", "-", "-o", "/dev/null", fixture.endpoint + "/moto-api/"])
            var status: Int32 = 0
            guard waitpid(pid, &status, WNOHANG) == 0 else { throw POSIXError(.EADDRINUSE) }
            if probe.status == 0, probe.standardOutput.contains("Werkzeug") {
                return fixture
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        fixture.stop()
        throw POSIXError(.ETIMEDOUT)
    }

    private init(port: Int, pid: pid_t) {
        self.port = port
        self.pid = pid
    }

    deinit { stop() }

    /// SIGKILL: moto keeps everything in memory, so there is nothing to shut down cleanly.
    func stop() {
        guard kill(pid, SIGKILL) == 0 else { return }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    /// Runs the boto3 helper and returns its output.
    func tool(_ arguments: String...) async throws -> String {
        let outcome = try await ChildProcess.run(
            "/usr/bin/env", ["python3", Self.tool, endpoint] + arguments, environment: Self.environment)
        guard outcome.status == 0 else {
            Issue.record("s3_tool \(arguments): \(outcome.standardError)")
            throw POSIXError(.EIO)
        }
        return outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
