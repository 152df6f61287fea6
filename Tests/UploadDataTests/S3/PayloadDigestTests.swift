import Crypto
import Foundation
import Testing
import UploadDomain

@testable import UploadData

/// What an S3 request needs of a body's file range: the signed payload's SHA-256 where it is signed, and the checksum
/// by the upload's algorithm, computed where the caller stands or on the digest queue; and the SHA-256 and MD5
/// `--verify` compares.
@Suite("PayloadDigest")
struct PayloadDigestTests {
    func hex(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    /// CRC-32 (ISO-HDLC, zlib's and S3's) a byte at a time from its polynomial: a reference independent of zlib.
    static func referenceCRC32(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] ^ (crc >> 8) }
        return withUnsafeBytes(of: (~crc).bigEndian) { Array($0) }
    }

    private static let crcTable: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        return crc
    }

    @Test("CRC-32 is zlib's, big-endian as S3 encodes it: the check value of \"123456789\" is cbf43926")
    func crc32CheckValue() {
        #expect(hex(S3ChecksumAlgorithm.crc32.checksum(of: Array("123456789".utf8))) == "cbf43926")
        #expect(hex(S3ChecksumAlgorithm.crc32.checksum(of: [])) == "00000000")
        #expect(
            S3ChecksumAlgorithm.sha256.checksum(of: Array("abc".utf8)) == Array(SHA256.hash(data: Array("abc".utf8))))
    }

    @Test("ranges read on the digest queue and in place give the checksum and signed hash of those very bytes")
    func rangesMatchReferences() async throws {
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
            let slice = bytes[offset..<(offset + length)]
            let sha256 = Array(SHA256.hash(data: slice))
            func digest(_ algorithm: S3ChecksumAlgorithm, signed: Bool) async throws -> PayloadDigest {
                try await PayloadDigest.computed(
                    item, offset: Int64(offset), length: Int64(length), algorithm: algorithm, signed: signed)
            }
            // Plain HTTP: the SHA-256 is signed and the CRC-32 is the checksum, from one read.
            let signed = try await digest(.crc32, signed: true)
            #expect(signed.payloadHash == hex(sha256))
            #expect(signed.checksum == Self.referenceCRC32(slice))
            #expect(signed.base64 == Data(Self.referenceCRC32(slice)).base64EncodedString())
            // HTTPS: no SHA-256 at all.
            let unsigned = try await digest(.crc32, signed: false)
            #expect(unsigned.payloadHash == "UNSIGNED-PAYLOAD")
            #expect(unsigned.checksum == Self.referenceCRC32(slice))
            // `--checksum-algorithm sha256`: the checksum is the signed digest too.
            #expect(try await digest(.sha256, signed: true).checksum == sha256)
            #expect(try await digest(.sha256, signed: true).payloadHash == hex(sha256))
            #expect(try await digest(.sha256, signed: false).checksum == sha256)

            let both = try FileDigest.of(item, offset: Int64(offset), length: Int64(length))
            #expect(both.sha256Hex == hex(sha256))
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
        do {
            _ = try await PayloadDigest.computed(item, algorithm: .crc32, signed: true)
            Issue.record("a short file was digested")
        } catch {
            #expect(error.code == .fileChanged)
        }
    }
}
