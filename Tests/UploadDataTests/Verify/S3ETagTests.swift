import Crypto
import Foundation
import Testing
import UploadDomain

@testable import UploadData

@Suite("S3 ETag and checksum recomputed for --verify")
struct S3ETagTests {
    func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test("a multipart ETag is the MD5 of the parts' binary MD5s, then -N")
    func multipart() {
        let parts: [[UInt8]] = [Array(repeating: 1, count: 100), Array(repeating: 2, count: 50)]
        let md5s = parts.map { Array(Insecure.MD5.hash(data: $0)) }
        var joined = Insecure.MD5()
        for md5 in md5s { joined.update(data: md5) }
        #expect(S3ETag.multipart(partMD5s: md5s) == hex(joined.finalize()) + "-2")
        // Not the MD5 of the whole content, nor of the hex digests.
        #expect(!S3ETag.multipart(partMD5s: md5s).hasPrefix(hex(Insecure.MD5.hash(data: Array(parts.joined())))))
    }

    @Test("a known vector: two parts whose MD5s are those of \"a\" and \"b\"")
    func knownVector() {
        // md5("a") = 0cc175b9c0f1b6a831c399e269772661, md5("b") = 92eb5ffee6ae2fec3ad71c777531578f;
        // md5 of their 32 binary bytes, as `printf '\x0c\xc1…\x8f' | md5sum` gives it.
        let a = Array(Insecure.MD5.hash(data: Array("a".utf8)))
        let b = Array(Insecure.MD5.hash(data: Array("b".utf8)))
        #expect(S3ETag.multipart(partMD5s: [a, b]) == hex(Insecure.MD5.hash(data: a + b)) + "-2")
        #expect(S3ETag.multipart(partMD5s: [a]).hasSuffix("-1"))
    }

    @Test("the expected ETag of a file follows the planner's threshold and part size")
    func expectedForFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("s3etag-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = (5 << 20) + 123
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let path = folder.appendingPathComponent("x.bin").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let item = UploadItem(
            id: 0, path: path, relativePath: "x.bin", size: Int64(size), modified: 0,
            contentType: "application/octet-stream", sniffedType: nil)
        let location = try S3Location(url: "s3://bkt/p/")
        let endpoint = S3Endpoint(endpointURL: "http://127.0.0.1:9", region: "us-east-1", pathStyle: true)
        let signer = SigV4Signer(
            credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "s"), region: "us-east-1")
        func planner(threshold: Int64) -> S3Planner {
            S3Planner(
                location: location, endpoint: endpoint, signer: signer, multipartThreshold: threshold,
                partSize: 5 << 20, partConcurrency: 1)
        }
        #expect(
            try S3ETag.expected(for: item, planner: planner(threshold: 64 << 20)) == hex(Insecure.MD5.hash(data: bytes))
        )
        let parts = [Array(bytes[0..<(5 << 20)]), Array(bytes[(5 << 20)...])].map { Array(Insecure.MD5.hash(data: $0)) }
        #expect(
            try S3ETag.expected(for: item, planner: planner(threshold: 5 << 20)) == S3ETag.multipart(partMD5s: parts))

        // The checksums S3 keeps, the same way: the file's, or that of its parts' checksums with -N.
        let halves = [Array(bytes[0..<(5 << 20)]), Array(bytes[(5 << 20)...])]
        func crc32(_ bytes: [UInt8]) -> [UInt8] { PayloadDigestTests.referenceCRC32(bytes) }
        let whole = try S3Checksum.expected(for: item, planner: planner(threshold: 64 << 20), algorithm: .crc32)
        #expect(whole == hex(crc32(bytes)))
        let composite = try S3Checksum.expected(for: item, planner: planner(threshold: 5 << 20), algorithm: .crc32)
        #expect(composite == hex(crc32(halves.flatMap { crc32($0) })) + "-2")
        #expect(!composite.hasPrefix(whole))
        #expect(
            try S3Checksum.expected(for: item, planner: planner(threshold: 64 << 20), algorithm: .sha256)
                == hex(SHA256.hash(data: bytes)))
        let partSHAs = halves.map { Array(SHA256.hash(data: $0)) }
        #expect(
            try S3Checksum.expected(for: item, planner: planner(threshold: 5 << 20), algorithm: .sha256)
                == hex(SHA256.hash(data: Array(partSHAs.joined()))) + "-2")
    }

    @Test("a stored checksum is read from base64 into hex, its -N kept; the wrong length or no base64 is refused")
    func storedChecksum() {
        let digest = Array(SHA256.hash(data: Array("abc".utf8)))
        let base64 = Data(digest).base64EncodedString()
        #expect(S3Checksum.hex(ofStored: base64, algorithm: .sha256) == hex(digest))
        #expect(S3Checksum.hex(ofStored: base64 + "-3", algorithm: .sha256) == hex(digest) + "-3")
        #expect(S3Checksum.hex(ofStored: base64, algorithm: .crc32) == nil)
        #expect(S3Checksum.hex(ofStored: "ePwTrw==-2", algorithm: .crc32) == "78fc13af-2")
        #expect(S3Checksum.hex(ofStored: "not base64!", algorithm: .crc32) == nil)
        #expect(S3Checksum.hex(ofStored: Data([1, 2, 3]).base64EncodedString(), algorithm: .sha256) == nil)
    }
}
