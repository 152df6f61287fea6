import Crypto
import Foundation
import Synchronization
import Testing
import UploadDomain

@testable import UploadData

/// Checkpoints in memory: earlier runs' unfinished uploads to hand back, and the uploads begun and ended.
final class RecordedCheckpoints: MultipartCheckpoints {
    let earlier: [UnfinishedUpload]
    let began = Mutex<[String?]>([])
    let ended = Mutex<[String]>([])

    init(earlier: [UnfinishedUpload] = []) {
        self.earlier = earlier
    }

    func unfinishedUploads(of item: UploadItem, key: String) -> [UnfinishedUpload] { earlier }
    func uploadBegan(_ uploadID: String, item: UploadItem, key: String, partSize: Int64, checksumAlgorithm: String?) {
        began.withLock { $0.append(checksumAlgorithm) }
    }
    func partFinished(uploadID: String, number: Int, part: FinishedPart) {}
    func uploadEnded(_ uploadID: String) { ended.withLock { $0.append(uploadID) } }
}

/// Answers each request with what `answer` gives for it, and keeps them all.
final class ScriptedTransport: UploadTransport {
    let requests = Mutex<[TransferRequest]>([])
    private let answer: @Sendable (TransferRequest) -> TransferResponse

    init(_ answer: @escaping @Sendable (TransferRequest) -> TransferResponse) {
        self.answer = answer
    }

    func send(_ request: TransferRequest, probe: TransferProbe) async throws -> TransferResponse {
        requests.withLock { $0.append(request) }
        return answer(request)
    }

    func setPaused(_ paused: Bool, probe: TransferProbe) {}
}

/// What the requests of a multipart upload carry: the checksum by the algorithm the upload was created with, and a
/// payload signed over plain HTTP only. The canned answers stand in for S3; moto checks the whole in S3UploadTests.
@Suite("S3 multipart upload requests")
struct MultipartUploadTests {
    // Made once: every test of the suite is an instance of its own, and making 10 MiB in a debug build takes seconds.
    static let bytes = (0..<((5 << 20) * 2 + 1000)).map { UInt8(truncatingIfNeeded: $0 &* 7 >> 3) }
    var bytes: [UInt8] { Self.bytes }

    static let accepted = TransferResponse(status: 200, headers: ["etag": "\"e\""], body: "<UploadId>up</UploadId>")

    func upload(
        endpoint: String, earlier: [UnfinishedUpload] = []
    ) async throws -> (requests: [TransferRequest], checkpoints: RecordedCheckpoints) {
        let outcome = try await attempt(endpoint: endpoint, earlier: earlier)
        if let failure = outcome.failure { throw failure }
        return (outcome.requests, outcome.checkpoints)
    }

    /// One upload of the test file to `endpoint`, each request answered by `answer`, failed parts retried up to
    /// `retries` times.
    func attempt(
        endpoint: String = "https://127.0.0.1:9", earlier: [UnfinishedUpload] = [], retries: Int = 0,
        probe: TransferProbe = TransferProbe(),
        answer: @escaping @Sendable (TransferRequest) -> TransferResponse = { _ in accepted }
    ) async throws -> (requests: [TransferRequest], checkpoints: RecordedCheckpoints, failure: (any Error)?) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("multipart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("big.bin").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let item = UploadItem(
            id: 0, path: path, relativePath: "big.bin", size: Int64(bytes.count), modified: 0,
            contentType: "application/octet-stream")
        var planner = S3Planner(
            location: try S3Location(url: "s3://bkt/"),
            endpoint: S3Endpoint(endpointURL: endpoint, region: "us-east-1", pathStyle: true),
            signer: SigV4Signer(
                credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "s"), region: "us-east-1"),
            multipartThreshold: 5 << 20, partSize: 5 << 20, partConcurrency: 1)
        let checkpoints = RecordedCheckpoints(earlier: earlier)
        planner.checkpoints = checkpoints
        planner.partRetries = RetryPolicy(maxRetries: retries, baseDelay: .zero)
        let transport = ScriptedTransport(answer)
        var failure: (any Error)?
        do {
            _ = try await planner.upload([item], via: transport, probe: probe, slots: TransferSlots(capacity: 1))
        } catch {
            failure = error
        }
        return (transport.requests.withLock { $0 }, checkpoints, failure)
    }

    func header(_ name: String, of request: TransferRequest) -> String? {
        request.headers.first { $0.name.lowercased() == name }?.value
    }

    func completion(_ requests: [TransferRequest]) -> String {
        guard case .bytes(let body, _) = requests.last?.body else { return "" }
        return String(decoding: body, as: UTF8.self)
    }

    func partBytes(_ number: Int) -> ArraySlice<UInt8> {
        bytes[((number - 1) * (5 << 20))..<min(number * (5 << 20), bytes.count)]
    }

    @Test("parts read again unchanged count as carried; an upload gone from S3 is begun anew, carrying nothing")
    func carriedOnce() async throws {
        let kept = TransferProbe()
        let continued = try await attempt(earlier: [earlier()], probe: kept)
        #expect(continued.failure == nil)
        #expect(kept.carried == 5 << 20)

        let restarted = TransferProbe()
        let gone = try await attempt(earlier: [earlier()], probe: restarted) { request in
            request.url.contains("uploadId=old")
                ? TransferResponse(status: 404, headers: [:], body: "<Error><Code>NoSuchUpload</Code></Error>")
                : Self.accepted
        }
        #expect(gone.failure == nil)
        #expect(gone.requests.contains { $0.method == .post && $0.url.contains("?uploads") })
        #expect(restarted.carried == 0 && restarted.sent == 0)

        // Every part carried, the upload gone at completion: carried bytes alone never made it all sent.
        let whole = TransferProbe()
        let everyPart = earlier { upload in
            for number in 2...3 {
                let crc = Data(PayloadDigestTests.referenceCRC32(partBytes(number))).base64EncodedString()
                upload.parts[number] = FinishedPart(etag: "\"e\(number)\"", checksum: crc)
            }
        }
        let completed = try await attempt(earlier: [everyPart], probe: whole) { request in
            request.url.contains("uploadId=old")
                ? TransferResponse(status: 404, headers: [:], body: "<Error><Code>NoSuchUpload</Code></Error>")
                : Self.accepted
        }
        #expect(completed.failure == nil)
        #expect(!whole.allSent && whole.carried == 0)
    }

    @Test("a new upload names CRC-32; each part carries its CRC-32 and, over plain HTTP, is signed over its SHA-256")
    func newUploadOverHTTP() async throws {
        let (requests, checkpoints) = try await upload(endpoint: "http://127.0.0.1:9")
        #expect(header("x-amz-checksum-algorithm", of: requests[0]) == "CRC32")
        #expect(checkpoints.began.withLock { $0 } == ["CRC32"])
        let parts = requests.filter { $0.method == .put }
        #expect(parts.count == 3)
        for (index, part) in parts.enumerated() {
            let slice = partBytes(index + 1)
            let crc = Data(PayloadDigestTests.referenceCRC32(slice)).base64EncodedString()
            #expect(header("x-amz-checksum-crc32", of: part) == crc)
            #expect(header("x-amz-sdk-checksum-algorithm", of: part) == "CRC32")
            let sha = SHA256.hash(data: slice).map { String(format: "%02x", $0) }.joined()
            #expect(header("x-amz-content-sha256", of: part) == sha)
            #expect(completion(requests).contains("<ChecksumCRC32>\(crc)</ChecksumCRC32>"))
        }
    }

    @Test("over HTTPS the parts go unsigned")
    func newUploadOverHTTPS() async throws {
        let (requests, _) = try await upload(endpoint: "https://127.0.0.1:9")
        let parts = requests.filter { $0.method == .put }
        #expect(parts.count == 3)
        #expect(parts.allSatisfy { header("x-amz-content-sha256", of: $0) == "UNSIGNED-PAYLOAD" })
        #expect(parts.allSatisfy { header("x-amz-checksum-crc32", of: $0) != nil })
    }

    /// An upload of `big.bin` as `upload` makes it (5 MiB parts, CRC-32) that sent its first part, changed by `change`.
    func earlier(_ change: (inout UnfinishedUpload) -> Void = { _ in }) -> UnfinishedUpload {
        let first = Data(PayloadDigestTests.referenceCRC32(partBytes(1))).base64EncodedString()
        var upload = UnfinishedUpload(
            uploadID: "old", size: Int64(bytes.count), modified: 0, partSize: 5 << 20, checksumAlgorithm: "CRC32",
            parts: [1: FinishedPart(etag: "\"e1\"", checksum: first)])
        change(&upload)
        return upload
    }

    @Test("an upload begun for the same bytes, part size and algorithm is continued from its finished parts")
    func continued() async throws {
        let (requests, checkpoints) = try await upload(endpoint: "https://127.0.0.1:9", earlier: [earlier()])
        #expect(checkpoints.began.withLock { $0 }.isEmpty)
        #expect(requests.map(\.method) == [.put, .put, .post])
        #expect(requests.allSatisfy { $0.url.contains("uploadId=old") })
        #expect(completion(requests).contains("<PartNumber>1</PartNumber><ETag>&quot;e1&quot;</ETag><ChecksumCRC32>"))
        #expect(checkpoints.ended.withLock { $0 } == ["old"])
    }

    /// Parts cut by another size would complete into another object (8 MiB parts completed as 16 MiB ones stored
    /// half the file); S3 fixes the algorithm at creation; parts of other bytes are not this file's.
    @Test(
        "an upload begun for another part size, checksum algorithm, size or mtime is aborted, and a new one begun",
        arguments: [
            { (upload: inout UnfinishedUpload) in upload.partSize = 8 << 20 },
            { $0.partSize = nil },
            { $0.checksumAlgorithm = "SHA256" },
            { $0.checksumAlgorithm = nil },
            { $0.size += 1 },
            { $0.modified += 1 },
        ] as [@Sendable (inout UnfinishedUpload) -> Void])
    func abandoned(change: @Sendable (inout UnfinishedUpload) -> Void) async throws {
        let (requests, checkpoints) = try await upload(endpoint: "https://127.0.0.1:9", earlier: [earlier(change)])
        #expect(requests.first?.method == .delete)
        #expect(requests.first?.url.hasSuffix("?uploadId=old") == true)
        #expect(requests.dropFirst().map(\.method) == [.post, .put, .put, .put, .post])
        #expect(checkpoints.began.withLock { $0 } == ["CRC32"])
        #expect(checkpoints.ended.withLock { $0 }.first == "old")
        #expect(!completion(requests).contains("e1"))
    }

    @Test("of several uploads left for the file, the usable one is continued and the others aborted")
    func severalLeft() async throws {
        let stale = earlier {
            $0.uploadID = "stale"
            $0.size += 1
        }
        let (requests, checkpoints) = try await upload(
            endpoint: "https://127.0.0.1:9", earlier: [stale, earlier()])
        #expect(requests.map(\.method) == [.delete, .put, .put, .post])
        #expect(requests[0].url.hasSuffix("?uploadId=stale"))
        #expect(checkpoints.began.withLock { $0 }.isEmpty)
        #expect(checkpoints.ended.withLock { $0 } == ["stale", "old"])
    }

    /// A request for part `number`.
    static func isPart(_ request: TransferRequest, _ number: Int) -> Bool {
        request.method == .put && request.url.contains("partNumber=\(number)&")
    }

    @Test("a part refused with 503 SlowDown is sent again on its own, within the same upload")
    func partRetried() async throws {
        let refusals = Mutex(1)
        let probe = TransferProbe()
        let (requests, checkpoints, failure) = try await attempt(retries: 2, probe: probe) { request in
            guard Self.isPart(request, 2),
                refusals.withLock({ left in
                    defer { left -= 1 }; return left > 0
                })
            else {
                return Self.accepted
            }
            return TransferResponse(status: 503, headers: [:], body: "<Error><Code>SlowDown</Code></Error>")
        }
        #expect(failure == nil)
        #expect(requests.filter { Self.isPart($0, 2) }.count == 2)
        #expect(probe.partsResent == 1)
        #expect(requests.map(\.method) == [.post, .put, .put, .put, .put, .post])
        #expect(!requests.contains { $0.method == .delete })
        #expect(checkpoints.ended.withLock { $0 } == ["up"])
    }

    @Test("a part refused for good fails the file and aborts the upload, once its retries are spent")
    func partRefusedForGood() async throws {
        let (requests, checkpoints, failure) = try await attempt(retries: 1) { request in
            Self.isPart(request, 2)
                ? TransferResponse(status: 503, headers: [:], body: "<Error><Code>SlowDown</Code></Error>")
                : Self.accepted
        }
        #expect((failure as? UploadError)?.httpStatus == 503)
        #expect(requests.filter { Self.isPart($0, 2) }.count == 2)
        #expect(requests.last?.method == .delete)
        #expect(checkpoints.ended.withLock { $0 } == ["up"])
    }

    @Test("an upload whose abort fails stays in the checkpoints, for the next run to abort")
    func failedAbortKept() async throws {
        let (requests, checkpoints, failure) = try await attempt { request in
            if Self.isPart(request, 1) { return TransferResponse(status: 403, headers: [:], body: "") }
            return request.method == .delete ? TransferResponse(status: 500, headers: [:], body: "") : Self.accepted
        }
        #expect((failure as? UploadError)?.httpStatus == 403)
        #expect(requests.last?.method == .delete)
        #expect(checkpoints.ended.withLock { $0 }.isEmpty)
    }

    @Test("a file that would need more than 10,000 parts is cut into larger ones; one above 5 GiB goes in parts")
    func partLimits() throws {
        let planner = S3Planner(
            location: try S3Location(url: "s3://bkt/"),
            endpoint: S3Endpoint(endpointURL: "http://127.0.0.1:9", region: "us-east-1", pathStyle: true),
            signer: SigV4Signer(credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "s"), region: "r"),
            multipartThreshold: .max, partSize: 5 << 20, partConcurrency: 1)
        func item(_ size: Int64) -> UploadItem {
            UploadItem(id: 0, path: "/x", relativePath: "x", size: size, modified: 0, contentType: "a/b")
        }
        let huge = item((5 << 20) * 10_000 + 1)
        #expect(planner.partSize(for: huge) == 6 << 20)
        #expect(planner.partRanges(of: huge).count <= 10_000)
        #expect(planner.partRanges(of: huge).reduce(0) { $0 + $1.length } == huge.size)
        #expect(planner.partSize(for: item((5 << 20) * 10_000)) == 5 << 20)
        #expect(planner.usesMultipart(item(5 << 30)) == false)
        #expect(planner.usesMultipart(item((5 << 30) + 1)))
    }
}
