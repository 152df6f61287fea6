import Foundation
import Testing

/// Issue 17: `--quiet` for scripts that want only what went wrong, and `--log-file` for whoever looks later.
@Suite("--quiet and --log-file")
struct QuietAndLogTests {
    let binary = ChildProcess.uploaderBinary

    @Test("--quiet prints the failures and the summary, nothing else")
    func quiet() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("quiet")
        for i in 0..<3 { try folder.write("ok-\(i).jpg", size: 2_000, seed: UInt64(i), prefix: Magic.jpeg) }
        try folder.write("link-target.txt", size: 10, seed: 9)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link", withDestinationPath: "/etc/hostname")
        let run = try await ChildProcess.run(
            binary,
            [folder.path, "--to", server.url("/datasets/q/images"), "-q", "--no-resume", "--max-dimension", "64"])
        #expect(run.status == 1, "the three fake JPEGs fail to decode: \(run.standardError)")
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.count == 4, "\(run.standardError)")
        #expect(lines.prefix(3).allSatisfy { $0.contains("failed") && $0.contains("cannot decode image") })
        #expect(lines.last?.hasPrefix("5 files: 1 done, 3 failed, 0 cancelled, 1 skipped") == true)
        #expect(run.standardOutput.isEmpty)
        await server.stop()
    }

    @Test("--log-file appends each file's story, 0600, without the token; --log-level warning keeps only trouble")
    func logFile() async throws {
        let token = "tok-\(UUID().uuidString)"
        let server = try await ServerFixture.start {
            $0.token = token
            $0.failRate = 0.5
            $0.seed = 3
        }
        let folder = try TestFolder("log")
        for i in 0..<4 { try folder.write("f\(i).bin", size: 5_000, seed: UInt64(i)) }
        let log = folder.path + ".log"
        let arguments = [
            folder.path, "--put", server.url("/files/log/"), "--no-tui", "--no-resume", "--token", token,
            "--log-file", log,
        ]
        let run = try await ChildProcess.run(binary, arguments + ["--retries", "10", "--log-level", "debug"])
        #expect(run.status == 0, "\(run.standardError)")
        let text = try String(contentsOfFile: log, encoding: .utf8)
        #expect(!text.contains(token))
        let lines = text.split(separator: "\n")
        #expect(
            lines.first?.contains("notice destination=") == true
                && lines.first?.contains("run started: 4 files") == true)
        for i in 0..<4 {
            #expect(
                lines.contains {
                    $0.contains(" info attempt=") && $0.contains("file=f\(i).bin ") && $0.contains(" done, ")
                })
        }
        #expect(lines.contains { $0.contains("warning") && $0.contains("retrying") }, "the server fails half: \(text)")
        #expect(lines.contains { $0.contains("debug") && $0.contains("started") })
        #expect(lines.last?.contains("run ended: 4 done, 0 failed") == true)
        var info = stat()
        #expect(stat(log, &info) == 0 && info.st_mode & 0o777 == 0o600)

        let quiet = try await ChildProcess.run(binary, arguments + ["--retries", "10", "--log-level", "warning"])
        #expect(quiet.status == 0)
        let appended = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").dropFirst(lines.count)
        #expect(
            !appended.isEmpty && appended.allSatisfy { $0.contains(" warning ") || $0.contains(" error ") },
            "\(appended)")
        await server.stop()
    }

    @Test("a file name cannot forge a log line: values with spaces, = or quotes are quoted as logfmt quotes them")
    func forgedName() async throws {
        let server = try RawCapture { _ in "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n\r\n" }
        defer { server.stop() }
        let folder = try TestFolder("log-forged")
        let name = "secret.pdf http=201 location=ok done, 1 bytes"
        try folder.write(name, size: 100, seed: 5)
        try folder.write("q\"uote=d.bin", size: 100, seed: 6)
        let log = folder.path + ".log"
        let run = try await ChildProcess.run(
            binary,
            [folder.path, "--put", server.url + "/", "--no-tui", "--no-resume", "--retries", "0", "--log-file", log])
        #expect(run.status == 1, "\(run.standardError)")
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").map(String.init)
        let failed = lines.map(Self.fields).filter { $0["file"] != nil }
        #expect(failed.count == 2, "\(lines)")
        #expect(failed.contains { $0["file"] == name }, "\(lines)")
        #expect(failed.contains { $0["file"] == "q\"uote=d.bin" }, "\(lines)")
        // The status is the 500 answered, not the one the name spells.
        #expect(failed.allSatisfy { $0["http"] == "500" && $0["location"] == nil }, "\(lines)")
    }

    /// The `key=value` fields of a log line (after its time and level, before its message), read as a logfmt
    /// reader reads them: a value in double quotes runs to the closing quote, `\"` and `\\` escaped.
    static func fields(_ line: String) -> [String: String] {
        var rest = Substring(line).split(separator: " ", maxSplits: 2).dropFirst(2).first ?? ""
        var fields: [String: String] = [:]
        while let eq = rest.firstIndex(of: "="), !rest[..<eq].contains(" ") {
            let key = String(rest[..<eq])
            rest = rest[rest.index(after: eq)...]
            var value = ""
            if rest.first == "\"" {
                rest.removeFirst()
                while let character = rest.popFirst(), character != "\"" {
                    value.append(character == "\\" ? rest.popFirst() ?? character : character)
                }
            } else {
                value = String(rest.prefix { $0 != " " })
                rest = rest.dropFirst(value.count)
            }
            fields[key] = value
            rest = rest.drop { $0 == " " }
        }
        return fields
    }

    @Test(
        "a log that cannot be written or a level that is not one: one line, exit 2, nothing sent",
        arguments: [
            (
                ["--log-file", "/nonexistent-dir/run.log"],
                "--log-file /nonexistent-dir/run.log: No such file or directory"
            ),
            (["--log-file", "/tmp", "--log-level", "info"], "--log-file /tmp: Is a directory"),
            (
                ["--log-file", "/tmp/uploader-never.log", "--log-level", "loud"],
                "--log-level takes debug, info, warning or error, not 'loud'"
            ),
        ])
    func badLog(arguments: [String], message: String) async throws {
        try await expectRefused(arguments, message: message)
    }
}
