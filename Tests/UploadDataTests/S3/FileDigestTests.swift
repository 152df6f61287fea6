import Crypto
import Foundation
import Testing
import UploadDomain

@testable import UploadData

/// The SHA-256 of a request body's file range, computed where the caller stands or on the digest queue, and the
/// SHA-256 and MD5 `--verify` compares.
@Suite("FileDigest")
struct FileDigestTests {
    @Test("a part read on the digest queue and a small range read in place give the digest of those very bytes")
    func rangesMatchCryptoKit() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("digest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = Int(PayloadDigest.offThreadBytes) * 2 + 12_345
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        let file = folder.appendingPathComponent("big.bin")
        try Data(bytes).write(to: file)
        let item = UploadItem(
            id: 0, path: file.path, relativePath: "big.bin", size: Int64(size), modified: 0,
            contentType: "application/octet-stream")

        for (offset, length) in [(0, size), (1000, Int(PayloadDigest.offThreadBytes) + 1), (size - 4096, 4096)] {
            let digest = try await PayloadDigest.computed(item, offset: Int64(offset), length: Int64(length))
            let slice = bytes[offset..<(offset + length)]
            let sha256 = Array(SHA256.hash(data: slice))
            #expect(digest.sha256 == sha256)
            #expect(digest.hex == sha256.map { String(format: "%02x", $0) }.joined())
            #expect(digest.base64 == Data(sha256).base64EncodedString())
            let both = try FileDigest.of(item, offset: Int64(offset), length: Int64(length))
            #expect(both.sha256Hex == digest.hex)
            #expect(both.md5 == Array(Insecure.MD5.hash(data: slice)))
        }
    }

    @Test("a file shorter than its scanned size fails as changed, off the caller's thread too")
    func shortFileFails() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("short-\(UUID().uuidString).bin")
        try Data(count: 1024).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let item = UploadItem(
            id: 0, path: file.path, relativePath: "short.bin", size: PayloadDigest.offThreadBytes, modified: 0,
            contentType: "application/octet-stream")
        await #expect(throws: UploadError.self) { try await PayloadDigest.computed(item) }
        do {
            _ = try await PayloadDigest.computed(item)
        } catch {
            #expect(error.code == .fileChanged)
        }
    }
}
