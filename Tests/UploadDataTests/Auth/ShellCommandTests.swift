import Foundation
import Testing

@testable import UploadData

@Suite("ShellCommand")
struct ShellCommandTests {
    /// Runs it on a thread of its own, as the token provider does: it blocks, and the pool's few threads serve the
    /// other tests meanwhile.
    func run(_ command: String, timeout: Double) async throws -> ShellCommand.Outcome {
        try await timedRun(command, timeout: timeout).outcome
    }

    /// `run`, with how long the call took on its thread (not counting the wait for a busy pool to resume the test).
    func timedRun(_ command: String, timeout: Double) async throws -> (outcome: ShellCommand.Outcome, took: Duration) {
        let result = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let started = ContinuousClock.now
                let outcome = Result { try ShellCommand.run(command, timeout: timeout) }
                continuation.resume(returning: outcome.map { ($0, ContinuousClock.now - started) })
            }
        }
        return try result.get()
    }

    @Test("output, exit status and standard error come back")
    func outputAndStatus() async throws {
        let ok = try await run("echo t0ken", timeout: 10)
        #expect(ok.ending == .exited(0))
        #expect(String(decoding: ok.standardOutput, as: UTF8.self) == "t0ken\n")
        let failed = try await run("echo nope >&2; exit 3", timeout: 10)
        #expect(failed.ending == .exited(3))
        #expect(String(decoding: failed.standardError, as: UTF8.self) == "nope\n")
    }

    /// A `pass` waiting on a pinentry: the shell's child holds the pipes. The whole group goes at the deadline.
    @Test("at the deadline the command and what it started are killed, and the wait ends")
    func timeoutKillsTheGroup() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("pid").path
        let (outcome, took) = try await timedRun("sleep 60 & echo $! > \(pidFile); wait", timeout: 0.5)
        #expect(outcome.ending == .timedOut)
        // Far from the 60 s the child would live, whatever the load on the machine.
        #expect(took < .seconds(20))
        let written = try String(contentsOfFile: pidFile, encoding: .utf8)
        let pid = try #require(Int32(written.trimmingCharacters(in: .whitespacesAndNewlines)))
        // Killed: gone, or a zombie until whoever adopted it reaps it.
        let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ")
        #expect(state == nil || state?[2] == "Z", "sleep \(pid) still runs")
    }

    @Test("a shell that is done does not wait for what it left in the background")
    func backgroundChild() async throws {
        let (outcome, took) = try await timedRun("sleep 30 & echo t0ken", timeout: 20)
        #expect(outcome.ending == .exited(0))
        #expect(String(decoding: outcome.standardOutput, as: UTF8.self) == "t0ken\n")
        // Far from the 30 s the background child lives, whatever the load on the machine.
        #expect(took < .seconds(20))
    }
}
