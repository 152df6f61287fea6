import Foundation

/// Where a GIF's data stops short of its trailer. libvips 8.14's GIF loader (libnsgif) shows what it decoded of a
/// cut frame, or the frame before it, without an error whatever `fail_on` asks: a GIF cut in its third frame came
/// out red, green, green. The blocks are walked here instead, as a truncated JPEG or PNG fails in its decoder.
enum GIFTruncation {
    /// nil when the blocks of the GIF at `path` are whole, else why not ("the file ends inside frame 3"); nil also
    /// for a file that cannot be read or is no GIF, which the decoder reports. One that ends after a whole block
    /// without its trailer byte is whole: some encoders write them, and every frame in it decodes as it is.
    static func cut(path: String) -> String? {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped) else { return nil }
        return data.withUnsafeBytes { cut(in: $0) }
    }

    /// `cut(path:)` of the bytes of a GIF.
    static func cut<Bytes: RandomAccessCollection<UInt8>>(in bytes: Bytes) -> String? where Bytes.Index == Int {
        guard bytes.startIndex == 0, bytes.count >= 13, bytes.starts(with: Array("GIF".utf8)) else { return nil }
        var position = 13 + colourTable(flags: bytes[10])
        var frames = 0
        /// Moves past a run of sub-blocks (a length byte, then that many bytes) and its empty terminator.
        func skipSubBlocks() -> Bool {
            while position < bytes.count {
                let length = Int(bytes[position])
                position += 1 + length
                if length == 0 { return true }
            }
            return false
        }
        while position < bytes.count {
            switch bytes[position] {
            case 0x3B:  // the trailer
                return nil
            case 0x21:  // an extension: its label, then sub-blocks
                position += 2
                guard skipSubBlocks() else { return "the file ends inside the extension after frame \(frames)" }
            case 0x2C:  // an image: its descriptor, a local colour table, the LZW code size, then sub-blocks
                frames += 1
                guard position + 10 <= bytes.count else { return "the file ends inside frame \(frames)" }
                position += 10 + colourTable(flags: bytes[position + 9]) + 1
                guard skipSubBlocks() else { return "the file ends inside frame \(frames)" }
            default:
                // Bytes that are no block: the decoders stop reading there, and so does this.
                return nil
            }
        }
        return nil
    }

    /// The bytes of the colour table that a descriptor's `flags` announce.
    private static func colourTable(flags: UInt8) -> Int {
        flags & 0x80 == 0 ? 0 : 3 << (Int(flags & 0x07) + 1)
    }
}
