import Crypto
import Foundation

/// A temporary folder of generated files, removed when the test ends.
final class TestFolder {
    let url: URL
    var path: String { url.path }

    init(_ name: String = "files") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("uploader-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Writes `size` pseudo-random bytes (seeded, so every file differs) and returns the file's path.
    @discardableResult
    func write(_ name: String, size: Int, seed: UInt64, prefix: [UInt8] = []) throws -> String {
        let path = url.appendingPathComponent(name).path
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        var generator = SplitMix(seed: seed)
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for i in words.indices { words[i] = generator.next() }
        }
        for (i, byte) in prefix.enumerated() where i < size { bytes[i] = byte }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Writes a large file in 8 MiB chunks so the test itself stays small in memory.
    func writeLarge(_ name: String, size: Int, seed: UInt64) throws -> String {
        let path = url.appendingPathComponent(name).path
        FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var generator = SplitMix(seed: seed)
        let chunk = 8 << 20
        var written = 0
        var buffer = [UInt8](repeating: 0, count: chunk)
        while written < size {
            buffer.withUnsafeMutableBytes { raw in
                let words = raw.bindMemory(to: UInt64.self)
                for i in words.indices { words[i] = generator.next() }
            }
            let count = min(chunk, size - written)
            try handle.write(contentsOf: buffer[0..<count])
            written += count
        }
        return path
    }
}

/// SHA-256 of a file, read in chunks.
func sha256(ofFile path: String) throws -> String {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    var hasher = SHA256()
    while let data = try handle.read(upToCount: 4 << 20), !data.isEmpty { hasher.update(data: data) }
    return hasher.finalize().map { String(format: "%02x", $0) }.joined()
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed &+ 0x9E37_79B9_7F4A_7C15 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// JPEG and PNG signatures, so sniffing has something real to find.
enum Magic {
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
}
