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

/// What the requests of a multipart upload carry: the checksum by the algorithm the upload was created with, and a
/// payload signed over plain HTTP only. The canned answers stand in for S3; moto checks the whole in S3UploadTests.
@Suite("S3 multipart upload requests")
struct MultipartUploadTests {
    let bytes = (0..<((5 << 20) * 2 + 1000)).map { UInt8(truncatingIfNeeded: $0 &* 7 >> 3) }

    func upload(
        endpoint: String, earlier: [UnfinishedUpload] = []
    ) async throws -> (requests: [TransferRequest], checkpoints: RecordedCheckpoints) {
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
        let transport = CannedTransport(
            TransferResponse(status: 200, headers: ["etag": "\"e\""], body: "<UploadId>up</UploadId>"))
        _ = try await planner.upload([item], via: transport, probe: TransferProbe(), slots: TransferSlots(capacity: 1))
        return (transport.requests.withLock { $0 }, checkpoints)
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
}
