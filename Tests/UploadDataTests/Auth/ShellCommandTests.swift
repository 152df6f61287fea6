import Foundation
import Testing

@testable import UploadData

@Suite("ShellCommand")
struct ShellCommandTests {
    @Test("output, exit status and standard error come back")
    func outputAndStatus() throws {
        let ok = try ShellCommand.run("echo t0ken", timeout: 10)
        #expect(ok.ending == .exited(0))
        #expect(String(decoding: ok.standardOutput, as: UTF8.self) == "t0ken\n")
        let failed = try ShellCommand.run("echo nope >&2; exit 3", timeout: 10)
        #expect(failed.ending == .exited(3))
        #expect(String(decoding: failed.standardError, as: UTF8.self) == "nope\n")
    }

    /// A `pass` waiting on a pinentry: the shell's child holds the pipes. The whole group goes at the deadline.
    @Test("at the deadline the command and what it started are killed, and the wait ends")
    func timeoutKillsTheGroup() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shell-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pidFile = folder.appendingPathComponent("pid").path
        let started = ContinuousClock.now
        let outcome = try ShellCommand.run("sleep 60 & echo $! > \(pidFile); wait", timeout: 0.5)
        #expect(outcome.ending == .timedOut)
        #expect(ContinuousClock.now - started < .seconds(5))
        let written = try String(contentsOfFile: pidFile, encoding: .utf8)
        let pid = try #require(Int32(written.trimmingCharacters(in: .whitespacesAndNewlines)))
        // Killed: gone, or a zombie until whoever adopted it reaps it.
        let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?.split(separator: " ")
        #expect(state == nil || state?[2] == "Z", "sleep \(pid) still runs")
    }

    @Test("a shell that is done does not wait for what it left in the background")
    func backgroundChild() throws {
        let started = ContinuousClock.now
        let outcome = try ShellCommand.run("sleep 30 & echo t0ken", timeout: 20)
        #expect(outcome.ending == .exited(0))
        #expect(String(decoding: outcome.standardOutput, as: UTF8.self) == "t0ken\n")
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}
