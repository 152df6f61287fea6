import Crypto
import Foundation
import Synchronization
import Testing
import UploadDomain

@testable import UploadData

/// Checkpoints in memory: an earlier run's unfinished upload to hand back, and the algorithms uploads began with.
final class RecordedCheckpoints: MultipartCheckpoints {
    let earlier: UnfinishedUpload?
    let began = Mutex<[String?]>([])

    init(earlier: UnfinishedUpload? = nil) {
        self.earlier = earlier
    }

    func unfinishedUpload(of item: UploadItem, key: String) -> UnfinishedUpload? { earlier }
    func uploadBegan(_ uploadID: String, item: UploadItem, key: String, checksumAlgorithm: String?) {
        began.withLock { $0.append(checksumAlgorithm) }
    }
    func partFinished(uploadID: String, number: Int, part: FinishedPart) {}
    func uploadEnded(_ uploadID: String) {}
}

/// What the requests of a multipart upload carry: the checksum by the algorithm the upload was created with, and a
/// payload signed over plain HTTP only. The canned answers stand in for S3; moto checks the whole in S3UploadTests.
@Suite("S3 multipart upload requests")
struct MultipartUploadTests {
    let bytes = (0..<((5 << 20) * 2 + 1000)).map { UInt8(truncatingIfNeeded: $0 &* 7 >> 3) }

    func upload(
        endpoint: String, earlier: UnfinishedUpload? = nil
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

    @Test("an upload an earlier version began with SHA-256 checksums is continued and completed with them")
    func continuedWithItsAlgorithm() async throws {
        let first = Data(SHA256.hash(data: partBytes(1))).base64EncodedString()
        let earlier = UnfinishedUpload(
            uploadID: "old", checksumAlgorithm: "SHA256", parts: [1: FinishedPart(etag: "\"e1\"", checksum: first)])
        let (requests, checkpoints) = try await upload(endpoint: "https://127.0.0.1:9", earlier: earlier)
        #expect(checkpoints.began.withLock { $0 }.isEmpty)
        let parts = requests.filter { $0.method == .put }
        #expect(parts.count == 2)
        for (index, part) in parts.enumerated() {
            let sha = Data(SHA256.hash(data: partBytes(index + 2))).base64EncodedString()
            #expect(header("x-amz-checksum-sha256", of: part) == sha)
            #expect(header("x-amz-checksum-crc32", of: part) == nil)
            #expect(completion(requests).contains("<ChecksumSHA256>\(sha)</ChecksumSHA256>"))
        }
        #expect(completion(requests).contains("<PartNumber>1</PartNumber><ETag>&quot;e1&quot;</ETag><ChecksumSHA256>"))
        #expect(!completion(requests).contains("CRC32"))
    }
}
