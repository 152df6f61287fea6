import Crypto
import Foundation
import Testing

/// `--verify` end to end: the built binary reads back what real servers on 127.0.0.1 stored.
@Suite("uploader-tui --verify end to end", .serialized)
struct VerifyTests {
    let binary = ChildProcess.uploaderBinary

    struct Run {
        var status: Int32
        var standardError: String
        var events: [[String: Any]]

        func events(_ kind: String) -> [[String: Any]] { events.filter { $0["event"] as? String == kind } }
        var summary: [String: Any]? { events("summary").last }
    }

    func upload(_ folder: TestFolder, _ arguments: [String], environment: [String: String] = [:]) async throws -> Run {
        let outcome = try await ChildProcess.run(
            binary, [folder.path] + arguments + ["--json", "--no-resume"], environment: environment)
        return Run(
            status: outcome.status, standardError: outcome.standardError, events: try ndjson(outcome.standardOutput))
    }

    func files(_ name: String, count: Int, size: Int = 40_000) throws -> TestFolder {
        let folder = try TestFolder(name)
        for i in 0..<count {
            try folder.write("f\(i).jpg", size: size + i * 777, seed: UInt64(i + 1), prefix: Magic.jpeg)
        }
        return folder
    }

    /// Every file went through `verifying` and ended done with the digest of its bytes, of `kind`.
    func expectVerified(_ run: Run, count: Int, kind: String) {
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.events("verifying").count == count, "\(run.standardError)")
        let done = run.events("done")
        #expect(done.count == count)
        for event in done {
            let verified = event["verified"] as? String ?? ""
            #expect(verified.hasPrefix(kind + ":"), "\(event)")
        }
        #expect(run.summary?["verified"] as? Int == count)
    }

    @Test("multipart to the reference server: every file verified by the sha256 of its answer")
    func multipartVerified() async throws {
        let server = try await ServerFixture.start()
        let folder = try files("verify-mp", count: 4)
        let run = try await upload(folder, ["--to", server.url("/datasets/v/images"), "--verify"])
        expectVerified(run, count: 4, kind: "sha256")
        let done = try #require(run.events("done").first { $0["file"] as? String == "f0.jpg" })
        #expect(done["verified"] as? String == "sha256:" + (try sha256(ofFile: folder.path + "/f0.jpg")))
        await server.stop()
    }

    @Test("--corrupt-rate 1: every file fails with verifyMismatch, once, and the run exits 1")
    func corruptedFails() async throws {
        let server = try await ServerFixture.start { $0.corruptRate = 1 }
        let folder = try files("verify-bad", count: 3)
        let run = try await upload(folder, ["--to", server.url("/datasets/v/images"), "--verify"])
        #expect(run.status == 1, "\(run.standardError)")
        #expect(run.events("done").isEmpty)
        let failed = run.events("failed")
        #expect(failed.count == 3)
        for event in failed {
            let error = event["error"] as? String ?? ""
            #expect(error.contains(": stored copy differs: expected sha256 "), "\(error)")
            #expect(!error.contains("\n"))
            #expect(event["attempt"] as? Int == 1, "a mismatch is not retried: \(event)")
        }
        #expect(run.standardError.contains("failed    f0.jpg: stored copy differs: expected sha256 "))
        // Without --verify the same server's answers pass: the read-back is what catches it.
        let blind = try await upload(folder, ["--to", server.url("/datasets/w/images")])
        #expect(blind.status == 0, "\(blind.standardError)")
        await server.stop()
    }

    @Test("a file whose stored copy was wrong goes again under a fresh key: reruns store it, and none meets a 422")
    func mismatchCuredByRerun() async throws {
        let server = try await ServerFixture.start {
            $0.corruptRate = 0.3
            $0.seed = 3
        }
        let folder = try files("verify-rerun", count: 6)
        let arguments = [
            folder.path, "--to", server.url("/datasets/v1/images"), "--verify", "--json", "--journal",
            folder.path + ".journal.sqlite",
        ]
        let first = try await ChildProcess.run(binary, arguments)
        #expect(first.status == 1, "\(first.standardError)")
        let mismatched = try ndjson(first.standardOutput).filter { $0["event"] as? String == "failed" }
        #expect(!mismatched.isEmpty)
        // Each rerun sends what is left; the server goes on spoiling a share of what it stores, so it may take more.
        var runs = 0
        var status = first.status
        while status != 0, runs < 5 {
            runs += 1
            let rerun = try await ChildProcess.run(binary, arguments)
            status = rerun.status
            for event in try ndjson(rerun.standardOutput) where event["event"] as? String == "failed" {
                let error = event["error"] as? String ?? ""
                #expect(error.contains("stored copy differs"), "run \(runs + 1): \(error)")
            }
        }
        #expect(status == 0)
        #expect(await server.server.statistics.idempotencyMismatches == 0)
        for i in 0..<6 {
            let stored = try sha256(ofFile: server.stored("datasets/v1/f\(i).jpg"))
            #expect(stored == (try sha256(ofFile: folder.path + "/f\(i).jpg")), "f\(i).jpg")
        }
        await server.stop()
    }

    @Test("presigned uploads are verified by the ETag their PUT's answer names; a spoilt object fails")
    func presignVerified() async throws {
        let server = try await ServerFixture.start { $0.token = "tok" }
        let folder = try files("verify-presign", count: 3)
        let arguments = [
            "--presign", server.url("/presigned-urls"), "--media-type", "archive", "--verify", "--token", "tok",
        ]
        let run = try await upload(folder, arguments)
        expectVerified(run, count: 3, kind: "md5")
        // One ticket request and three PUTs: no HEAD, which S3 refuses on a URL presigned for PUT.
        #expect(await server.server.statistics.requests == 4)
        await server.stop()

        let spoiling = try await ServerFixture.start { $0.corruptRate = 1 }
        let spoilt = try await upload(
            folder, ["--presign", spoiling.url("/presigned-urls"), "--media-type", "archive", "--verify"])
        #expect(spoilt.status == 1, "\(spoilt.standardError)")
        #expect(spoilt.events("failed").count == 3)
        #expect(spoilt.standardError.contains("stored copy differs: expected md5 "), "\(spoilt.standardError)")
        #expect(!spoilt.standardError.contains("sig="), "presigned signatures never appear")
        await spoiling.stop()
    }

    @Test("--put to the reference server's /files/ is verified by the HEAD ETag")
    func putVerified() async throws {
        let server = try await ServerFixture.start()
        let folder = try files("verify-put", count: 3)
        let run = try await upload(folder, ["--put", server.url("/files/up/"), "--verify"])
        expectVerified(run, count: 3, kind: "md5")

        let spoiling = try await ServerFixture.start { $0.corruptRate = 1 }
        let spoilt = try await upload(folder, ["--put", spoiling.url("/files/up/"), "--verify"])
        #expect(spoilt.status == 1, "\(spoilt.standardError)")
        #expect(spoilt.events("failed").count == 3)
        await server.stop()
        await spoiling.stop()
    }

    @Test("--put to nginx WebDAV (no MD5 ETag) is verified by a GET hashed as it streams")
    func webDAVVerified() async throws {
        let certificates = try await TestCertificates.make()
        let nginx = try await NginxFixture.start(certificates)
        let folder = try files("verify-dav", count: 2, size: 3 << 20)
        let run = try await upload(folder, ["--put", "http://127.0.0.1:\(nginx.plainPort)/v/", "--verify"])
        expectVerified(run, count: 2, kind: "sha256")
        // Lines read `"GET /v/f0.jpg HTTP/1.1" 200 -`: one HEAD (a non-MD5 ETag) and one GET per file.
        let methods = nginx.requests(port: nginx.plainPort).map { $0.split(separator: " ").first ?? "" }
        #expect(methods.filter { $0 == "\"GET" }.count == 2, "\(methods)")
        #expect(methods.filter { $0 == "\"HEAD" }.count == 2, "\(methods)")
        await nginx.stop()
    }

    @Test(
        "S3 (moto): a single PUT by its checksum, a multipart upload by the checksum of its parts'",
        arguments: ["crc32", "sha256"])
    func s3Verified(algorithm: String) async throws {
        let moto = try await MotoFixture.start()
        _ = try await moto.tool("mb", "checked")
        let folder = try TestFolder("verify-s3")
        let small = try folder.write("small.jpg", size: 100_000, seed: 3, prefix: Magic.jpeg)
        let big = try folder.writeLarge("big.bin", size: 6 << 20, seed: 5)
        let run = try await upload(
            folder,
            [
                "--to", "s3://checked/v/", "--endpoint-url", moto.endpoint, "--verify", "--part-size", "5M",
                "--multipart-threshold", "5M", "--checksum-algorithm", algorithm,
            ],
            environment: MotoFixture.environment)
        #expect(run.status == 0, "\(run.standardError)")
        let done = Dictionary(
            uniqueKeysWithValues: run.events("done").map { ($0["file"] as? String ?? "", $0["verified"] as? String) })
        /// The file's checksum, or with a part size the checksum of its parts' checksums: CRC-32 from python's zlib.
        func expected(_ path: String, partSize: Int? = nil) async throws -> String {
            let hex = { (bytes: [UInt8]) in bytes.map { String(format: "%02x", $0) }.joined() }
            guard algorithm == "sha256" else {
                let base64 = try await moto.tool("crc32", path, partSize.map(String.init) ?? "")
                return hex([UInt8](Data(base64Encoded: base64) ?? Data()))
            }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            guard let partSize else { return hex(Array(SHA256.hash(data: bytes))) }
            let parts = stride(from: 0, to: bytes.count, by: partSize).flatMap {
                Array(SHA256.hash(data: bytes[$0..<min($0 + partSize, bytes.count)]))
            }
            return hex(Array(SHA256.hash(data: parts)))
        }
        #expect(done["small.jpg"] == "\(algorithm):" + (try await expected(small)), "\(done)")
        // 6 MiB in 5 MiB parts: the checksum of the two parts' checksums.
        let composite = try await expected(big, partSize: 5 << 20)
        #expect(done["big.bin"]??.hasPrefix("\(algorithm)-parts:" + composite) == true, "\(done)")
        #expect(run.summary?["verified"] as? Int == 2)
    }

    @Test("--verify with a batched multipart request is refused in one line before any request: exit 2")
    func refusedUpFront() async throws {
        let server = try await ServerFixture.start()
        let folder = try files("verify-refuse", count: 2)
        let outcome = try await ChildProcess.run(
            binary, [folder.path, "--to", server.url("/datasets/v/images"), "--batch", "2", "--verify", "--no-tui"])
        #expect(outcome.status == 2, "\(outcome.standardError)")
        let lines = outcome.standardError.split(separator: "\n")
        #expect(lines.count == 1, "\(outcome.standardError)")
        #expect(lines.first?.contains("--verify: ") == true, "\(outcome.standardError)")
        #expect(await server.server.statistics.requests == 0)
        await server.stop()
    }
}
