import Crypto
import Foundation
import Testing

/// S3 through the built binary against moto's S3 server on 127.0.0.1.
@Suite("uploader-tui to S3 (moto)", .serialized)
struct S3UploadTests {
    let binary = ChildProcess.uploaderBinary

    @Test("20 small files by single PUT arrive intact under the prefix")
    func smallFiles() async throws {
        let moto = try await MotoFixture.start()
        _ = try await moto.tool("mb", "pets")
        let folder = try TestFolder("s3small")
        for i in 0..<20 { try folder.write("p\(i).jpg", size: 5_000 + i * 333, seed: UInt64(i), prefix: Magic.jpeg) }
        let journal = ["--journal", folder.path + ".journal"]
        let upload = [folder.path, "--to", "s3://pets/run1/", "--endpoint-url", moto.endpoint, "--json"] + journal
        let outcome = try await ChildProcess.run(binary, upload, environment: MotoFixture.environment)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let keys = try await moto.tool("keys", "pets")
        #expect(keys == "[" + (0..<20).map { "\"run1/p\($0).jpg\"" }.sorted().joined(separator: ", ") + "]")
        for i in [0, 7, 19] {
            #expect(
                try await moto.tool("sha256", "pets", "run1/p\(i).jpg")
                    == (try sha256(ofFile: folder.path + "/p\(i).jpg")))
        }
        #expect(!outcome.standardOutput.contains("testsecret") && !outcome.standardError.contains("testsecret"))

        // Seed 002: replace = delete, then upload. `delete` takes keys relative to the prefix.
        let deleted = try await ChildProcess.run(
            binary,
            ["delete", "--from", "s3://pets/run1/", "--endpoint-url", moto.endpoint, "p3.jpg", "p4.jpg"] + journal,
            environment: MotoFixture.environment)
        #expect(deleted.status == 0, "\(deleted.standardError)")
        #expect(deleted.standardError.contains("deleted   p3.jpg"))
        #expect(deleted.standardError.contains("journal   forgot 2 done records: a rerun sends those files again"))
        let left = try await moto.tool("keys", "pets")
        #expect(!left.contains("run1/p3.jpg") && !left.contains("run1/p4.jpg") && left.contains("run1/p5.jpg"))
        // The journal no longer says they are there: a rerun puts them back, and only them.
        let rerun = try await ChildProcess.run(binary, upload, environment: MotoFixture.environment)
        let summary = try #require(try ndjson(rerun.standardOutput).last)
        #expect(summary["done"] as? Int == 2 && summary["skipped"] as? Int == 18, "\(summary)")
        #expect(try await moto.tool("keys", "pets").contains("run1/p3.jpg"))

        // Deleted through another journal: the object goes, the upload's journal still says done, and this says so.
        let elsewhere = try await ChildProcess.run(
            binary,
            [
                "delete", "--from", "s3://pets/run1/", "--endpoint-url", moto.endpoint, "p5.jpg", "--journal",
                folder.path + ".other.journal",
            ],
            environment: MotoFixture.environment)
        #expect(elsewhere.status == 0, "\(elsewhere.standardError)")
        #expect(!elsewhere.standardError.contains("forgot"), "\(elsewhere.standardError)")
        // Gone already (S3 answers a delete of a missing key as done): the upload's journal forgets it too.
        let gone = try await ChildProcess.run(
            binary, ["delete", "--from", "s3://pets/run1/", "--endpoint-url", moto.endpoint, "p5.jpg"] + journal,
            environment: MotoFixture.environment)
        #expect(
            gone.status == 0 && gone.standardError.contains("journal   forgot 1 done record"), "\(gone.standardError)")

        for blank in ["", "  "] {
            let refused = try await ChildProcess.run(
                binary, ["delete", "--from", "s3://pets/run1/", "--endpoint-url", moto.endpoint, blank],
                environment: MotoFixture.environment)
            #expect(refused.status == 2 && refused.standardError.contains("delete: a key cannot be empty or blank"))
        }
    }

    @Test("a 200 MiB file goes as a multipart upload and reads back byte for byte", .timeLimit(.minutes(5)))
    func multipart() async throws {
        let moto = try await MotoFixture.start()
        _ = try await moto.tool("mb", "big")
        let folder = try TestFolder("s3big")
        let path = try folder.writeLarge("video.bin", size: 200 << 20, seed: 9)
        let outcome = try await ChildProcess.run(
            binary, [path, "--to", "s3://big/", "--endpoint-url", moto.endpoint, "--json", "--part-size", "16M"],
            environment: MotoFixture.environment)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let done = try #require(
            outcome.standardOutput.split(separator: "\n").first { $0.contains("\"event\":\"done\"") })
        #expect(done.contains("\"location\":\"video.bin\""))
        #expect(try await moto.tool("sha256", "big", "video.bin") == (try sha256(ofFile: path)))
        #expect(try await moto.tool("uploads", "big") == "[]")
    }

    @Test("into a bucket with Object Lock, single and multipart uploads name CRC-32 checksums, which S3 keeps")
    func checksumsStandInForContentMD5() async throws {
        let moto = try await MotoFixture.start()
        _ = try await moto.tool("mb-locked", "locked")
        let folder = try TestFolder("s3locked")
        try folder.write("small.jpg", size: 70_000, seed: 3, prefix: Magic.jpeg)
        let big = try folder.writeLarge("big.bin", size: 12 << 20, seed: 5)
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", "s3://locked/", "--endpoint-url", moto.endpoint, "--no-tui",
                "--multipart-threshold", "5M", "--part-size", "5M",
            ],
            environment: MotoFixture.environment)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let small = try await moto.tool("crc32", folder.path + "/small.jpg")
        #expect(try await moto.tool("checksum", "locked", "small.jpg") == "CRC32 " + small)
        // A multipart object's checksum is the CRC-32 of its parts' CRC-32s.
        let composite = try await moto.tool("crc32", big, String(5 << 20))
        #expect(try await moto.tool("checksum", "locked", "big.bin") == "CRC32 " + composite)
        #expect(try await moto.tool("sha256", "locked", "big.bin") == (try sha256(ofFile: big)))
    }

    @Test("over HTTPS the bodies go unsigned with their CRC-32, and moto checking signatures behind TLS takes them")
    func unsignedPayloadOverTLS() async throws {
        let moto = try await MotoFixture.start(authAfter: 4)
        let keys = try await moto.tool("iam-user", "tls").split(separator: " ").map(String.init)
        try #require(keys.count == 2)
        let certificates = try await TestCertificates.make()
        let nginx = try await NginxFixture.start(certificates, s3Upstream: moto.port)
        let folder = try TestFolder("s3tls")
        try folder.write("small.jpg", size: 50_000, seed: 1, prefix: Magic.jpeg)
        _ = try folder.writeLarge("large.bin", size: 12 << 20, seed: 2)
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", "s3://tls/", "--endpoint-url", "https://127.0.0.1:\(nginx.s3Port)", "--no-tui",
                "--cacert", certificates.caCertificate, "--multipart-threshold", "5M", "--part-size", "5M",
                "--retries", "0", "--verify",
            ],
            environment: ["AWS_ACCESS_KEY_ID": keys[0], "AWS_SECRET_ACCESS_KEY": keys[1], "AWS_REGION": "us-east-1"])
        #expect(outcome.status == 0, "\(outcome.standardError)")
        // One PUT for the small file and three parts, each unsigned and carrying its CRC-32.
        let puts = nginx.s3Requests().filter { $0.hasPrefix("PUT ") }.map { $0.split(separator: " ") }
        #expect(puts.count == 4, "\(puts)")
        for put in puts {
            #expect(put.count == 4 && put[2] == "UNSIGNED-PAYLOAD" && put[3] != "-", "\(put)")
        }
        let small = try await moto.tool("crc32", folder.path + "/small.jpg")
        #expect(puts.contains { $0[1] == "/tls/small.jpg" && $0[3] == small }, "\(puts)")
        // --verify: moto's CRC-32 of the large file's parts, from the bytes it stored, matches the file's.
        #expect(outcome.standardError.contains("2 verified"), "\(outcome.standardError)")
        await nginx.stop()
    }

    /// Interrupts an upload of `path` to `bucket` mid-way, with `extra` options; its standard error and output.
    @discardableResult
    func interrupt(
        _ path: String, to bucket: String, on moto: MotoFixture, extra: [String]
    ) async throws -> (standardError: String, standardOutput: String) {
        // 1 MiB/s per part: the parts need several seconds, so SIGINT after 3 s lands mid-upload.
        // --foreground: one SIGINT to the child alone (a second one would mean "exit at once"); --grace 0: the stop
        // aborts the parts in flight at once instead of letting them finish.
        let outcome = try await ChildProcess.run(
            "/usr/bin/timeout",
            [
                "--foreground", "--preserve-status", "-s", "INT", "3", binary, path, "--to", "s3://\(bucket)/",
                "--endpoint-url", moto.endpoint, "--no-tui", "--part-size", "6M", "--multipart-threshold", "6M",
                "--limit-rate", "1M", "--grace", "0",
            ] + extra,
            environment: MotoFixture.environment)
        #expect(outcome.status == 130, "\(outcome.standardError)")
        #expect(outcome.standardError.contains("cancelled slow.bin"))
        return (outcome.standardError, outcome.standardOutput)
    }

    @Test("an interrupted multipart upload is kept for the rerun, which completes it; without a journal, aborted")
    func interruptedUploadKept() async throws {
        let moto = try await MotoFixture.start()
        _ = try await moto.tool("mb", "cut")
        let folder = try TestFolder("s3cut")
        let path = try folder.writeLarge("slow.bin", size: 24 << 20, seed: 4)
        let aborted = try await interrupt(path, to: "cut", on: moto, extra: ["--no-resume"]).standardError
        #expect(!aborted.contains("kept for the next run"), "\(aborted)")
        #expect(try await moto.tool("uploads", "cut") == "[]")
        #expect(try await moto.tool("keys", "cut") == "[]")

        let journal = ["--journal", folder.path + ".journal.sqlite"]
        let (said, events) = try await interrupt(path, to: "cut", on: moto, extra: journal + ["--json"])
        #expect(
            said.contains(
                "cancelled slow.bin (aborted when --grace ran out; its multipart upload is kept for the next run to "
                    + "continue)"), "\(said)")
        // The parts it sent are kept, and its event says how many bytes went.
        let cancelled = try #require(try ndjson(events).first { $0["event"] as? String == "cancelled" })
        #expect((cancelled["bytes_sent"] as? Int ?? 0) > 0, "\(cancelled)")
        #expect(try await moto.tool("uploads", "cut") == "[\"slow.bin\"]")
        let kept = try await journalQuery(folder.path + ".journal.sqlite", "SELECT upload_id FROM multipart_uploads")
        #expect(kept.count == 1)
        let rerun = try await ChildProcess.run(
            binary,
            [
                path, "--to", "s3://cut/", "--endpoint-url", moto.endpoint, "--no-tui", "--part-size", "6M",
                "--multipart-threshold", "6M",
            ] + journal,
            environment: MotoFixture.environment)
        #expect(rerun.status == 0, "\(rerun.standardError)")
        #expect(try await moto.tool("uploads", "cut") == "[]")
        #expect(try await moto.tool("sha256", "cut", "slow.bin") == (try sha256(ofFile: path)))
        #expect(
            try await journalQuery(folder.path + ".journal.sqlite", "SELECT count(*) FROM multipart_uploads") == ["0"])
    }

    @Test("an upload kept for a file not in the run is counted once; once its file is gone, it is aborted and said")
    func keptUploadOfAbsentFile() async throws {
        let moto = try await MotoFixture.start()
        _ = try await moto.tool("mb", "gone")
        let folder = try TestFolder("s3gone")
        let path = try folder.writeLarge("slow.bin", size: 24 << 20, seed: 5)
        let other = try folder.write("other.jpg", size: 9_000, seed: 6, prefix: Magic.jpeg)
        let journal = ["--journal", folder.path + ".journal.sqlite"]
        try await interrupt(path, to: "gone", on: moto, extra: journal)
        #expect(try await moto.tool("uploads", "gone") == "[\"slow.bin\"]")
        let rerun = [other, "--to", "s3://gone/", "--endpoint-url", moto.endpoint, "--no-tui"] + journal

        let elsewhere = try await ChildProcess.run(binary, rerun, environment: MotoFixture.environment)
        #expect(elsewhere.status == 0, "\(elsewhere.standardError)")
        #expect(
            elsewhere.standardError.contains(
                "note: 1 multipart upload is kept for a file this run does not send to its key: a run that does "
                    + "continues it"),
            "\(elsewhere.standardError)")
        #expect(try await moto.tool("uploads", "gone") == "[\"slow.bin\"]")

        try FileManager.default.removeItem(atPath: path)
        let after = try await ChildProcess.run(binary, rerun, environment: MotoFixture.environment)
        #expect(after.status == 0, "\(after.standardError)")
        let lines = after.standardError.split(separator: "\n").filter { $0.contains("multipart upload") }
        #expect(lines.count == 1, "\(after.standardError)")
        #expect(
            lines.first?.hasSuffix("slow.bin: the file is gone, so it can never be continued") == true,
            "\(after.standardError)")
        #expect(lines.first?.hasPrefix("note: aborted the multipart upload kept for ") == true)
        #expect(try await moto.tool("uploads", "gone") == "[]")
        #expect(
            try await journalQuery(folder.path + ".journal.sqlite", "SELECT count(*) FROM multipart_uploads") == ["0"])
    }

    /// What a rerun of a killed multipart upload does differently.
    enum Rerun: String, CaseIterable, CustomTestStringConvertible {
        case same, otherPartSize, otherChecksumAlgorithm, changedFile, rewrittenWithItsTimes
        var testDescription: String { rawValue }
    }

    /// A rerun that cuts the same parts of the same bytes continues the killed upload. One that would cut others
    /// aborts it and sends the file anew: its 5 MiB parts completed as 6 MiB ones would store the wrong object, and
    /// left open it would keep its parts (and bill them) for ever. Parts whose bytes changed under the old size and
    /// mtime are sent again.
    @Test(
        "a multipart upload killed with -9 continues on the rerun, or is aborted and sent anew when its parts differ",
        arguments: Rerun.allCases)
    func killedMultipartReruns(_ rerun: Rerun) async throws {
        let moto = try await MotoFixture.start()
        _ = try await moto.tool("mb", "resume")
        let folder = try TestFolder("s3resume")
        var path = try folder.writeLarge("long.bin", size: 30 << 20, seed: 6)
        let journal = folder.path + ".journal.sqlite"
        let arguments = [
            path, "--to", "s3://resume/", "--endpoint-url", moto.endpoint, "--json", "--journal", journal,
            "--multipart-threshold", "5M", "--concurrency", "2",
        ]
        let child = try ChildProcess.start(
            binary, arguments + ["--part-size", "5M", "--limit-rate", "2M"], environment: MotoFixture.environment)
        // The journal may exist before its tables do: a failed read is "not yet".
        try await waitUntil("two parts in the journal", every: .milliseconds(100)) {
            let parts = try? await journalQuery(journal, "SELECT count(*) FROM multipart_parts")
            return Int(parts?.first ?? "") ?? 0 >= 2
        }
        child.signal(SIGKILL)
        _ = await child.wait()
        let parts = Int(try await journalQuery(journal, "SELECT count(*) FROM multipart_parts").first ?? "") ?? 0
        #expect(parts >= 2 && parts < 6)
        #expect(try await moto.tool("uploads", "resume") == "[\"long.bin\"]")

        var options = ["--part-size", "5M"]
        switch rerun {
        case .same: break
        case .otherPartSize: options = ["--part-size", "6M"]
        case .otherChecksumAlgorithm: options += ["--checksum-algorithm", "sha256"]
        case .changedFile: path = try folder.writeLarge("long.bin", size: 30 << 20, seed: 7)
        case .rewrittenWithItsTimes:
            // Other bytes of the same size under the old mtime (`cp -p`): the journal's check cannot tell.
            var before = stat()
            #expect(stat(path, &before) == 0)
            path = try folder.writeLarge("long.bin", size: 30 << 20, seed: 7)
            var times = [before.st_atim, before.st_mtim]
            #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        }
        let second = try await ChildProcess.run(binary, arguments + options, environment: MotoFixture.environment)
        #expect(second.status == 0, "\(second.standardError)")
        // The parts the killed run sent count as done, apart from this run's bytes and rate.
        let summary = try #require(try ndjson(second.standardOutput).last)
        let carried = summary["bytes_carried"] as? Int ?? 0
        #expect(rerun == .same ? carried >= 2 * (5 << 20) : carried == 0, "\(summary)")
        // Continued, the killed upload is completed; aborted, it is gone: either way none is left open.
        #expect(try await moto.tool("uploads", "resume") == "[]")
        #expect(try await moto.tool("sha256", "resume", "long.bin") == (try sha256(ofFile: path)))
        let algorithm = rerun == .otherChecksumAlgorithm ? "SHA256 " : "CRC32 "
        #expect(try await moto.tool("checksum", "resume", "long.bin").hasPrefix(algorithm))
        #expect(try await journalQuery(journal, "SELECT count(*) FROM multipart_uploads") == ["0"])
    }

    @Test("with moto checking signatures, signed single and multipart uploads pass and a wrong secret is refused")
    func signaturesChecked() async throws {
        let moto = try await MotoFixture.start(authAfter: 4)
        let keys = try await moto.tool("iam-user", "signed").split(separator: " ").map(String.init)
        try #require(keys.count == 2)
        let folder = try TestFolder("s3auth")
        // A space, not `+` or non-ASCII: moto checks signatures over the decoded path for those, unlike S3
        // (whose own example signs `test$file.text` as `/test%24file.text`, as SigV4SignerTests check).
        try folder.write("small file name.jpg", size: 50_000, seed: 1, prefix: Magic.jpeg)
        try folder.writeLarge("large.bin", size: 12 << 20, seed: 2)
        let good = ["AWS_ACCESS_KEY_ID": keys[0], "AWS_SECRET_ACCESS_KEY": keys[1], "AWS_REGION": "us-east-1"]
        let arguments = [
            folder.path, "--to", "s3://signed/in/", "--endpoint-url", moto.endpoint, "--no-tui",
            "--multipart-threshold", "5M", "--part-size", "5M", "--retries", "0",
        ]
        let signed = try await ChildProcess.run(binary, arguments, environment: good)
        #expect(signed.status == 0, "\(signed.standardError)")
        #expect(signed.standardError.contains("2 files: 2 done"))

        var wrong = good
        wrong["AWS_SECRET_ACCESS_KEY"] = "not-" + keys[1]
        let refused = try await ChildProcess.run(binary, arguments, environment: wrong)
        #expect(refused.status == 1)
        #expect(
            refused.standardError.contains("HTTP 403 forbidden — SignatureDoesNotMatch"), "\(refused.standardError)")
        for output in [signed.standardError, refused.standardError] { #expect(!output.contains(keys[1])) }
    }

    @Test("an unknown --checksum-algorithm is one line and exit 2, before anything is sent")
    func unknownChecksumAlgorithm() async throws {
        let folder = try TestFolder("s3md5")
        try folder.write("a.jpg", size: 100, seed: 1, prefix: Magic.jpeg)
        let outcome = try await ChildProcess.run(
            binary,
            [folder.path, "--to", "s3://b/", "--endpoint-url", "http://127.0.0.1:9", "--checksum-algorithm", "md5"],
            environment: MotoFixture.environment)
        #expect(outcome.status == 2)
        #expect(outcome.standardError == "uploader-tui: --checksum-algorithm takes crc32 or sha256, not 'md5'\n")
    }

    @Test("dot segments in a prefix are part of the key, as the aws CLI stores them: never another key or bucket")
    func dotSegments() async throws {
        let moto = try await MotoFixture.start()
        _ = try await moto.tool("mb", "dots")
        _ = try await moto.tool("mb", "victim")
        let folder = try TestFolder("s3dots")
        try folder.write("f.txt", size: 10, seed: 1)
        for prefix in ["x/../y/", "./d/", "../victim/"] {
            let outcome = try await ChildProcess.run(
                binary,
                [
                    folder.path, "--to", "s3://dots/" + prefix, "--endpoint-url", moto.endpoint, "--no-tui",
                    "--no-resume",
                ],
                environment: MotoFixture.environment)
            #expect(outcome.status == 0, "\(prefix): \(outcome.standardError)")
        }
        #expect(try await moto.tool("keys", "dots") == #"["../victim/f.txt", "./d/f.txt", "x/../y/f.txt"]"#)
        #expect(try await moto.tool("keys", "victim") == "[]")
    }

    @Test("-H headers are signed and stored with single and multipart objects; one the signature sets is refused")
    func userHeaders() async throws {
        let moto = try await MotoFixture.start()
        _ = try await moto.tool("mb", "hdr")
        let folder = try TestFolder("s3hdr")
        try folder.write("site.css", size: 100, seed: 1)
        _ = try folder.writeLarge("big.bin", size: 6 << 20, seed: 2)
        let headers = ["-H", "Content-Type: text/css", "-H", "Cache-Control: max-age=60", "-H", "x-amz-meta-owner: qa"]
        let outcome = try await ChildProcess.run(
            binary,
            [
                folder.path, "--to", "s3://hdr/", "--endpoint-url", moto.endpoint, "--no-tui", "--no-resume",
                "--multipart-threshold", "5M", "--part-size", "5M",
            ] + headers,
            environment: MotoFixture.environment)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        let stored = #"{"cache": "max-age=60", "meta": {"owner": "qa"}, "type": "text/css"}"#
        #expect(try await moto.tool("head", "hdr", "site.css") == stored)
        #expect(try await moto.tool("head", "hdr", "big.bin") == stored)
        let refused = try await ChildProcess.run(
            binary, [folder.path, "--to", "s3://hdr/", "--endpoint-url", moto.endpoint, "-H", "Authorization: x"],
            environment: MotoFixture.environment)
        #expect(refused.status == 2)
        #expect(refused.standardError.contains("-H Authorization: set by the S3 signature"), "\(refused)")
    }

    @Test("AWS_ENDPOINT_URL_S3 stands for --endpoint-url, as with the aws CLI; the option wins")
    func endpointFromEnvironment() async throws {
        let moto = try await MotoFixture.start()
        _ = try await moto.tool("mb", "envep")
        let folder = try TestFolder("s3envep")
        try folder.write("f.txt", size: 10, seed: 1)
        var environment = MotoFixture.environment
        environment["AWS_ENDPOINT_URL_S3"] = moto.endpoint
        environment["AWS_ENDPOINT_URL"] = "http://127.0.0.1:9"
        let outcome = try await ChildProcess.run(
            binary, [folder.path, "--to", "s3://envep/", "--no-tui", "--no-resume"], environment: environment)
        #expect(outcome.status == 0, "\(outcome.standardError)")
        #expect(try await moto.tool("keys", "envep") == #"["f.txt"]"#)
        environment["AWS_ENDPOINT_URL_S3"] = "http://127.0.0.1:9"
        let option = try await ChildProcess.run(
            binary, [folder.path, "--to", "s3://envep/o/", "--endpoint-url", moto.endpoint, "--no-tui", "--no-resume"],
            environment: environment)
        #expect(option.status == 0, "\(option.standardError)")
    }

    @Test("a missing bucket is one clear line naming S3's code, and exit 1")
    func missingBucket() async throws {
        let moto = try await MotoFixture.start()
        let folder = try TestFolder("s3none")
        try folder.write("a.jpg", size: 100, seed: 1, prefix: Magic.jpeg)
        for i in 0..<40 { try folder.write("b-\(i).bin", size: 100, seed: UInt64(i)) }
        let outcome = try await ChildProcess.run(
            binary,
            [folder.path, "--to", "s3://nothere/", "--endpoint-url", moto.endpoint, "--json", "--concurrency", "1"],
            environment: MotoFixture.environment)
        #expect(outcome.status == 1)
        #expect(outcome.standardError.contains("a.jpg: HTTP 404 not found (check the URL) — NoSuchBucket"))
        // The first file tells: the rest would meet the same missing bucket, so they are not tried.
        let summary = try #require(try ndjson(outcome.standardOutput).last)
        #expect(summary["failed"] as? Int == 1, "\(summary)")
        #expect(summary["cancelled"] as? Int == 40, "\(summary)")
        // delete names it the same way, not with S3's XML.
        let deleted = try await ChildProcess.run(
            binary, ["delete", "--from", "s3://nothere/", "--endpoint-url", moto.endpoint, "a.jpg"],
            environment: MotoFixture.environment)
        #expect(deleted.status == 1)
        #expect(deleted.standardError.contains("a.jpg: HTTP 404 not found (check the URL) — NoSuchBucket"))
        #expect(!deleted.standardError.contains("<"), "\(deleted.standardError)")
    }
}
