import Foundation
import Testing
import UploadDomain

/// The built `uploader-tui` binary, run as a child process: what scripts and CI rely on.
@Suite("uploader-tui --no-tui end to end", .serialized)
struct HeadlessBinaryTests {
    let binary = ChildProcess.uploaderBinary

    func events(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            return try #require(object as? [String: Any], "not an object: \(line)")
        }
    }

    @Test("--json writes parseable NDJSON, in order per file, and exits 0")
    func ndjsonAndSuccess() async throws {
        let server = try await ServerFixture.start { $0.modelingDelay = 0.05 }
        let folder = try TestFolder()
        for i in 0..<6 { try folder.write("cat-\(i).jpg", size: 200_000 + i, seed: UInt64(i), prefix: Magic.jpeg) }
        let outcome = try await ChildProcess.run(
            binary, [folder.path, "--to", server.url("/datasets/pets/images"), "--json", "--concurrency", "3"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let lines = try events(outcome.standardOutput)
        // The width first, however fast the run: a script knows it before the first request starts.
        let widths = lines.filter { $0["event"] as? String == "concurrency" }
        #expect(lines.first?["event"] as? String == "concurrency", "\(outcome.standardOutput)")
        #expect(widths.count == 1 && widths[0]["concurrency"] as? Int == 3 && widths[0]["auto"] as? Bool == false)
        let order = ["queued", "started", "modeling", "done"]
        for i in 0..<6 {
            let kinds = lines.filter { $0["file"] as? String == "cat-\(i).jpg" }.compactMap { $0["event"] as? String }
                .filter { $0 != "progress" }
            #expect(kinds == order, "cat-\(i).jpg: \(kinds)")
            let done = try #require(
                lines.first { $0["file"] as? String == "cat-\(i).jpg" && $0["event"] as? String == "done" })
            #expect(done["http_status"] as? Int == 201)
            #expect(done["bytes_sent"] as? Int == 200_000 + i)
            #expect(done["bytes_total"] as? Int == 200_000 + i)
            #expect(done["attempt"] as? Int == 1)
            #expect(done["location"] as? String == "datasets/pets/cat-\(i).jpg")
            #expect(
                (done["result"] as? [String: Any])?["sha256"] as? String
                    == (try sha256(ofFile: folder.path + "/cat-\(i).jpg")))
            for key in ["phase", "error", "ts"] { #expect(done.keys.contains(key), "done lacks \(key)") }
        }
        let summary = try #require(lines.last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["done"] as? Int == 6)
        #expect(summary["exit_code"] as? Int == 0)
        #expect(outcome.standardError.contains("6 files: 6 done, 0 failed"))
        await server.stop()
    }

    @Test("--json accounts for every entry of the folder: what the scan leaves out is a skipped event each")
    func everyEntryAccountedFor() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("every")
        try folder.write("a.jpg", size: 100, seed: 1, prefix: Magic.jpeg)
        try folder.write("notes.txt", size: 100, seed: 2)
        let old = try folder.write("old.jpg", size: 100, seed: 3, prefix: Magic.jpeg)
        var times = [timespec(tv_sec: 1_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, old, &times, 0) == 0)
        try folder.write(".hidden", size: 10, seed: 4)
        try folder.write(".git/config", size: 10, seed: 5)
        try folder.write("sub/c.jpg", size: 100, seed: 6, prefix: Magic.jpeg)
        try folder.write("raw/r.jpg", size: 100, seed: 7, prefix: Magic.jpeg)
        #expect(mkfifo(folder.path + "/pipe", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/key", withDestinationPath: "/etc/passwd")
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", server.url("/datasets/every/images"), "--json", "--no-resume", "--exclude",
                "*.txt", "--exclude", "raw/", "--max-age", "2d",
            ])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let lines = try events(outcome.standardOutput)
        let leftOut = lines.filter { $0["event"] as? String == "skipped" && $0["left_out"] as? Bool == true }
        let reasons = Dictionary(
            uniqueKeysWithValues: leftOut.map { ($0["file"] as? String ?? "", $0["reason"] as? String ?? "") })
        #expect(
            reasons == [
                ".git/": "hidden (--hidden sends it)", ".hidden": "hidden (--hidden sends it)",
                "notes.txt": "left out by --include/--exclude", "pipe": "not a regular file (named pipe)",
                "raw/": "left out by --exclude", "sub/": "folder not uploaded (use --recursive)",
                "old.jpg": "left out by --max-age/--min-age",
            ])
        #expect(leftOut.allSatisfy { $0["event"] as? String == "skipped" && $0["phase"] as? String == "skipped" })
        // Before any file's event, and every entry once: the files of the batch and those left out.
        let firstFile = try #require(lines.firstIndex { $0["event"] as? String == "queued" })
        #expect(lines[..<firstFile].filter { $0["left_out"] != nil }.count == leftOut.count)
        let queued = lines.filter { $0["event"] as? String == "queued" }.compactMap { $0["file"] as? String }
        let accounted = (queued + reasons.keys.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }).sorted()
        let listed = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(accounted == listed)
        let summary = try #require(lines.last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["left_out"] as? Int == 7)
        #expect(summary["files"] as? Int == 2 && summary["skipped"] as? Int == 1, "\(summary)")
        await server.stop()
    }

    @Test("a server answering 500 fails the files with status and excerpt, and exits 1")
    func serverErrorExitsOne() async throws {
        let server = try await ServerFixture.start {
            $0.failRate = 1; $0.failStatus = 500
        }
        let folder = try TestFolder()
        try folder.write("dog.jpg", size: 10_000, seed: 3, prefix: Magic.jpeg)
        let outcome = try await ChildProcess.run(
            binary, [folder.path, "--to", server.url("/datasets/x/images"), "--no-tui", "--json", "--retries", "0"])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("failed    dog.jpg: HTTP 500 server error — "))
        let failed = try #require(try events(outcome.standardOutput).first { $0["event"] as? String == "failed" })
        #expect(failed["http_status"] as? Int == 500)
        #expect((failed["error"] as? String)?.contains("injected fault") == true)
        await server.stop()
    }

    @Test("--results through a link replaces the link's target and keeps the link; a pipe is written into")
    func resultsTargets() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("a.jpg", size: 100, seed: 1)
        let out = try TestFolder("results")
        let target = out.path + "/target.json"
        try Data("old".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: out.path + "/link.json", withDestinationPath: "target.json")
        let linked = try await ChildProcess.run(
            binary, [folder.path, "--to", server.url("/datasets/x/images"), "-q", "--results", out.path + "/link.json"])
        #expect(linked.status == 0, "\(linked.standardError)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: out.path + "/link.json") == "target.json")
        #expect(try String(contentsOfFile: target, encoding: .utf8).contains("\"phase\" : \"done\""))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == ["link.json", "target.json"])

        let fifo = out.path + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0)
        // Read as a pipe, to its end (Foundation's file reading takes the FIFO's size, 0, and would never open it),
        // on a thread of its own: the open waits for the writer, and the pool's few threads serve the other tests.
        let reader = Task {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    let descriptor = open(fifo, O_RDONLY)
                    defer { close(descriptor) }
                    var bytes: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while case let count = read(descriptor, &buffer, buffer.count), count > 0 {
                        bytes += buffer[..<count]
                    }
                    continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
                }
            }
        }
        let piped = try await ChildProcess.run(
            binary, [folder.path, "--to", server.url("/datasets/y/images"), "-q", "--results", fifo])
        #expect(piped.status == 0, "\(piped.standardError)")
        #expect(await reader.value.contains("\"file\" : \"a.jpg\""))
        var info = stat()
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)

        // /dev/stdout sent to a file with the NDJSON: the results are added after the events, not put in their place.
        let both = out.path + "/both.ndjson"
        let url = server.url("/datasets/z/images")
        let command = "'\(binary)' '\(folder.path)' --to '\(url)' --json --no-resume --results /dev/stdout > '\(both)'"
        let shell = try await ChildProcess.run("/bin/sh", ["-c", command])
        #expect(shell.status == 0, "\(shell.standardError)")
        let text = try String(contentsOfFile: both, encoding: .utf8)
        #expect(text.hasPrefix("{\"event\":\"concurrency\""), "\(text)")
        #expect(text.contains("\"event\":\"summary\"") && text.hasSuffix("  ]\n}\n"), "\(text)")
        await server.stop()
    }

    @Test("options typed for another destination are a usage error; from a profile's defaults, they are left unused")
    func optionsOfAnotherMode() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("a.jpg", size: 100, seed: 1)
        let (to, put) = (server.url("/datasets/n/images"), server.url("/files/n/"))
        let refused: [([String], String)] = [
            (["--to", to, "--media-type", "x"], "--media-type applies to --presign, not --to URL"),
            (["--put", put, "--batch", "4"], "--batch applies to --to URL (multipart forms), not --put"),
            (["--put", put, "-F", "a=b"], "-F applies to --to URL (multipart forms), not --put"),
            (["--to", to, "--part-size", "1M"], "--part-size applies to --to s3:// (S3), not --to URL"),
            (
                ["--to", to, "--quality", "60"],
                "--quality applies to images re-encoded by --max-dimension, --convert or --strip-metadata"
            ),
            // The default value typed is still an option that does nothing here.
            (
                ["--presign", server.url("/presigned-urls"), "--batch", "1", "--field", "f", "--region", "eu-west-1"],
                "--batch and --field apply to --to URL (multipart forms), not --presign; --region applies to --to "
                    + "s3:// (S3), not --presign"
            ),
        ]
        for (arguments, message) in refused {
            let outcome = try await ChildProcess.run(binary, [folder.path] + arguments + ["--no-tui"])
            #expect(outcome.status == 2, "\(arguments): \(outcome.standardError)")
            #expect(outcome.standardError == "uploader-tui: \(message)\n", "\(arguments)")
        }
        #expect(await server.server.statistics.requests == 0)
        // A flag switched off asks for nothing: a script may pass it to override a profile, whatever the destination.
        let post = try await ChildProcess.run(
            binary, [folder.path, "--to", to, "--batch", "2", "-F", "a=b", "--no-path-style", "--no-tui"])
        #expect(post.status == 0, "\(post.standardError)")

        // [defaults] holds settings for every mode: a PUT run and an S3 one use what applies to them, silently.
        let home = try TestFolder("config")
        try FileManager.default.createDirectory(atPath: home.path + "/uploader-tui", withIntermediateDirectories: true)
        let config = """
            [defaults]
            batch = 4
            fields = ["album=pets"]
            media_type = "archive"
            part_size = "1M"
            token_command = "echo t0k3n"
            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: home.path + "/uploader-tui/config.toml"))
        let profiled = try await ChildProcess.run(
            binary, [folder.path, "--put", put, "--no-tui", "--no-resume"], environment: ["XDG_CONFIG_HOME": home.path])
        #expect(profiled.status == 0, "\(profiled.standardError)")
        #expect(
            profiled.standardError.split(separator: "\n").count == 2,
            "a file and the summary: \(profiled.standardError)")
        #expect(await server.server.statistics.storedByPath["files/n/a.jpg"] != nil)
        try Data(config.replacingOccurrences(of: "1M", with: "6M").utf8).write(
            to: URL(fileURLWithPath: home.path + "/uploader-tui/config.toml"))
        let aws = ["AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret", "HOME": home.path]
        let s3 = try await ChildProcess.run(
            binary, [folder.path, "--to", "s3://pets/", "--endpoint-url", server.url(""), "--dry-run", "--no-resume"],
            environment: aws.merging(["XDG_CONFIG_HOME": home.path]) { $1 })
        #expect(s3.status == 0, "token_command is for HTTP destinations: \(s3.standardError)")
        await server.stop()
    }

    @Test("usage errors exit 2 before anything is sent; an empty folder exits 3")
    func usageAndNothing() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("a.jpg", size: 100, seed: 1)
        let twin = try TestFolder("twin")
        try twin.write("a.jpg", size: 101, seed: 2)
        let url = server.url("/datasets/x/images")
        let cases: [[String]] = [
            [folder.path, twin.path, "--put", server.url("/files/x/")],  // two a.jpg: the second would overwrite
            [folder.path, "--to", url, "--bogus-flag"],
            [folder.path + "/missing", "--to", url],
            [folder.path, "--to", "not a url"],
            [folder.path, "--to", "ftp://127.0.0.1/x"],
            [folder.path],
            [folder.path, "--to", url, "-H", "X-Bad: a\r\nX-Injected: 1"],
            [folder.path, "--to", url, "--batch", "zero"],
            [folder.path, "--to", "s3:///no-bucket"],
            [folder.path, "--to", "s3://pets/"],  // no credentials anywhere
            [folder.path, "--to", "s3://pets/", "--part-size", "1M"],
            [folder.path, "--to", url, "--results", "/nonexistent-folder/r.json"],
            [folder.path, "--to", url, "--results", folder.path],
            ["", "--to", url],  // an unset variable: not the current folder
            [folder.path, "--to", url, "--max-host-connections", "0"],
        ]
        let home = try TestFolder("home")
        // No AWS credentials in the environment or in ~/.aws: the S3 cases must stop before sending.
        let bare = ["HOME": home.path, "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_PROFILE": ""]
        for arguments in cases {
            let outcome = try await ChildProcess.run(binary, arguments + ["--no-tui"], environment: bare)
            #expect(outcome.status == 2, "\(arguments): \(outcome.standardError)")
            #expect(outcome.standardError.hasPrefix("uploader-tui: "), "\(outcome.standardError)")
            #expect(outcome.standardError.split(separator: "\n").count == 1, "one line: \(outcome.standardError)")
        }
        #expect(await server.server.statistics.requests == 0)
        let empty = try TestFolder("empty")
        // An earlier run's results are replaced: a script reading them must not take them for this run's.
        let results = empty.path + ".results.json"
        try Data("{\"files\":[{\"file\":\"old.jpg\"}]}".utf8).write(to: URL(fileURLWithPath: results))
        let nothing = try await ChildProcess.run(binary, [empty.path, "--to", url, "--no-tui", "--results", results])
        #expect(nothing.status == 3)
        #expect(nothing.standardError.contains("nothing to upload in \(empty.path)"))
        let written = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: results)))
        #expect((written as? [String: Any])?["files"] as? [Any] != nil)
        #expect(((written as? [String: Any])?["files"] as? [Any])?.isEmpty == true, "\(written)")

        // Results that cannot be written (a full device) make the exit 1.
        let full = try await ChildProcess.run(
            binary, [folder.path, "--to", url, "--json", "--no-resume", "--results", "/dev/full"])
        #expect(full.status == 1, "\(full.standardError)")
        #expect(full.standardError.contains("--results /dev/full: cannot write"), "\(full.standardError)")
        await server.stop()
    }

    @Test("with nothing to upload (exit 3), --json still ends with the summary, after the entries left out")
    func nothingToUploadSummary() async throws {
        let server = try await ServerFixture.start()
        let empty = try TestFolder("empty-json")
        let filtered = try TestFolder("filtered-json")
        try filtered.write("a.jpg", size: 100, seed: 1, prefix: Magic.jpeg)
        let url = server.url("/datasets/none/images")
        let cases: [(arguments: [String], leftOut: Int, reason: String)] = [
            ([empty.path, "--to", url, "--json"], 0, "nothing to upload in \(empty.path)"),
            ([filtered.path, "--to", url, "--json", "--exclude", "*.jpg"], 1, "nothing to upload in \(filtered.path)"),
            (
                [filtered.path, "--to", url, "--json", "--retry-failed"], 0,
                "no file failed or was left unfinished by an earlier run to \(url)"
            ),
        ]
        for (arguments, leftOut, reason) in cases {
            let outcome = try await ChildProcess.run(binary, arguments)
            #expect(outcome.status == 3, "\(arguments): \(outcome.standardError)")
            let lines = try events(outcome.standardOutput)
            #expect(lines.first?["event"] as? String == "concurrency", "\(arguments): \(outcome.standardOutput)")
            let skipped = lines.filter { $0["event"] as? String == "skipped" && $0["left_out"] as? Bool == true }
            #expect(skipped.count == leftOut, "\(arguments)")
            let summary = try #require(lines.last, "\(arguments)")
            #expect(summary["event"] as? String == "summary" && summary["exit_code"] as? Int == 3, "\(summary)")
            #expect(summary["files"] as? Int == 0 && summary["left_out"] as? Int == leftOut, "\(summary)")
            #expect(summary["reason"] as? String == reason && summary["ts"] is String, "\(summary)")
        }
        let dry = try await ChildProcess.run(
            binary, [filtered.path, "--to", url, "--json", "--exclude", "*", "--dry-run"])
        #expect(dry.status == 3, "\(dry.standardError)")
        let summary = try #require(try events(dry.standardOutput).last)
        #expect(summary["dry_run"] as? Bool == true && summary["exit_code"] as? Int == 3, "\(summary)")
        #expect(await server.server.statistics.requests == 0)
        await server.stop()
    }

    @Test("--version prints the release and exits 0")
    func version() async throws {
        let outcome = try await ChildProcess.run(binary, ["--version"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(outcome.standardOutput == UploaderVersion.current + "\n")
    }

    @Test("--help, -h and help COMMAND print that command's help and exit 0; help of no command exits 2")
    func help() async throws {
        // They printed the top command's help for any command, and exited 2.
        for arguments in [["--help"], ["-h"]] {
            let outcome = try await ChildProcess.run(binary, arguments)
            #expect(outcome.status == 0, "\(arguments): \(outcome.standardError)")
            #expect(outcome.standardOutput.contains("upload (default)"), "\(arguments)")
            #expect(outcome.standardOutput.contains("libcurl, 3 nothing to upload"), "\(arguments)")
        }
        for arguments in [["upload", "--help"], ["help", "upload"]] {
            let outcome = try await ChildProcess.run(binary, arguments)
            #expect(outcome.status == 0, "\(arguments): \(outcome.standardError)")
            #expect(outcome.standardOutput.contains("USAGE: uploader-tui upload"), "\(arguments)")
            #expect(outcome.standardOutput.contains("--concurrency"), "\(arguments)")
        }
        let delete = try await ChildProcess.run(binary, ["help", "delete"])
        #expect(delete.status == 0)
        #expect(delete.standardOutput.contains("USAGE: uploader-tui delete"), "\(delete.standardOutput)")
        let show = try await ChildProcess.run(binary, ["help", "config", "show"])
        #expect(show.status == 0, "\(show.standardError)")
        #expect(show.standardOutput.contains("USAGE: uploader-tui config show"), "\(show.standardOutput)")
        // A topic there is not is a usage error, not the top help as if it had been found.
        let unknown = try await ChildProcess.run(binary, ["help", "nosuch"])
        #expect(unknown.status == 2)
        #expect(unknown.standardOutput.isEmpty)
        #expect(
            unknown.standardError
                == "uploader-tui: help: unknown subcommand 'nosuch'; valid: upload, delete, history, config, attach, "
                + "ps, stop\n")
        let nested = try await ChildProcess.run(binary, ["help", "config", "nosuch"])
        #expect(nested.status == 2)
        #expect(nested.standardError == "uploader-tui: help config: unknown subcommand 'nosuch'; valid: show, path\n")
    }

    @Test("a command that ends while libcurl is still loading exits cleanly every time")
    func earlyExitWhileLoadingLibcurl() async throws {
        // libcurl loads and warms up on a thread started with `main`; exiting meanwhile crashed 3 to 9 runs in 100.
        var statuses: [Int32: Int] = [:]
        for _ in 0..<150 {
            let outcome = try await ChildProcess.run(binary, ["--version"])
            statuses[outcome.status, default: 0] += 1
        }
        #expect(statuses == [0: 150])
    }

    @Test("the token authorises the upload and never appears in any output; a wrong one fails with 401")
    func tokenNeverPrinted() async throws {
        let secret = "s3cr3t-token-value"
        let server = try await ServerFixture.start { $0.token = secret }
        let folder = try TestFolder()
        try folder.write("a.png", size: 5_000, seed: 2, prefix: Magic.png)
        let url = server.url("/datasets/t/images")
        let good = try await ChildProcess.run(
            binary, [folder.path, "--to", url, "--json"], environment: ["UPLOADER_TOKEN": secret])
        #expect(good.status == 0, "\(good.standardError)")
        let bad = try await ChildProcess.run(
            binary, [folder.path, "--to", url, "--json", "--token", "wrong-\(secret)"])
        #expect(bad.status == 1)
        #expect(bad.standardError.contains("a.png: HTTP 401 unauthorized"))
        for output in [good.standardOutput, good.standardError, bad.standardOutput, bad.standardError] {
            #expect(!output.contains(secret))
        }
        await server.stop()
    }

    @Test("an unreadable file is reported by name and the rest still upload")
    func unreadableFile() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder()
        try folder.write("ok.jpg", size: 1_000, seed: 1, prefix: Magic.jpeg)
        // A dangling link cannot be read whoever runs the test (root reads files whatever their mode).
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/gone.jpg", withDestinationPath: "/nonexistent/x")
        // -L: a link is otherwise skipped unread.
        let outcome = try await ChildProcess.run(
            binary, [folder.path, "-L", "--to", server.url("/datasets/u/images"), "--no-tui"])
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("gone.jpg: cannot read file: No such file or directory"))
        #expect(outcome.standardError.contains("done      ok.jpg"))
        await server.stop()
    }

    @Test("a folder that cannot be listed: named, it is a usage error; inside the tree, a failing folder")
    func unlistableFolder() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("unlistable")
        try folder.write("ok.jpg", size: 1_000, seed: 1, prefix: Magic.jpeg)
        try folder.write("locked/in.jpg", size: 1_000, seed: 2, prefix: Magic.jpeg)
        let locked = folder.path + "/locked"
        chmod(locked, 0)
        defer { chmod(locked, 0o755) }
        let url = server.url("/datasets/locked/images")
        let named = try await ChildProcess.runUnprivileged([locked, "--to", url, "--no-tui", "--no-resume"])
        #expect(named.status == 2, "\(named.standardError)")
        #expect(named.standardError == "uploader-tui: \(locked): cannot list folder: Permission denied\n")
        let tree = try await ChildProcess.runUnprivileged([folder.path, "-r", "--to", url, "--no-tui", "--no-resume"])
        #expect(tree.status == 1, "\(tree.standardError)")
        #expect(
            tree.standardError.contains("failed    locked/: cannot list folder: Permission denied"),
            "\(tree.standardError)")
        #expect(tree.standardError.contains("done      ok.jpg"), "\(tree.standardError)")
        #expect(await server.server.statistics.filesStored == 1)
        await server.stop()
    }

    @Test("--results naming a writable file in a folder that cannot be written is refused before anything is sent")
    func resultsInClosedFolder() async throws {
        let server = try await ServerFixture.start()
        let folder = try TestFolder("results-closed")
        try folder.write("ok.jpg", size: 1_000, seed: 1, prefix: Magic.jpeg)
        let closed = folder.path + ".out"
        try FileManager.default.createDirectory(atPath: closed, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: closed + "/results.json", contents: Data("{}".utf8))
        chmod(closed + "/results.json", 0o666)
        chmod(closed, 0o555)
        defer { chmod(closed, 0o755) }
        let outcome = try await ChildProcess.runUnprivileged([
            folder.path, "--to", server.url("/datasets/r/images"), "--no-tui", "--no-resume", "--results",
            closed + "/results.json",
        ])
        #expect(outcome.status == 2, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("cannot write in \(closed)"), "\(outcome.standardError)")
        #expect(await server.server.statistics.requests == 0)
        await server.stop()
    }
}
