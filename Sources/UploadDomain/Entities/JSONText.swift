/// JSON string literals as UTF-8 bytes, for the NDJSON writer and the journal's batch lookups.
public enum JSONText {
    /// Whether `byte` goes into a JSON string as it is: not `"`, `\`, a C0 control, DEL, or 0xE2 (which may start
    /// U+2028 or U+2029).
    @inlinable
    public static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0x7F && byte != 0xE2
    }

    /// Appends `text` as a JSON string literal. Escapes `"`, `\`, C0 controls, DEL, and U+2028/U+2029 (line
    /// breaks to JavaScript); every other byte is copied as it is.
    public static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Most text (file names, URLs, statuses) needs no escape: copied in one go, not byte by byte.
        let plain = text.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(isPlain) }
        if plain == true {
            out.append(contentsOf: text.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        var pendingE2 = 0  // bytes of a possible E2 80 A8/A9 sequence seen so far
        for byte in text.utf8 {
            if pendingE2 == 2, byte == 0xA8 || byte == 0xA9 {
                out.removeLast(2)
                out += Array((byte == 0xA8 ? "\\u2028" : "\\u2029").utf8)
                pendingE2 = 0
                continue
            }
            pendingE2 = byte == 0xE2 ? 1 : (pendingE2 == 1 && byte == 0x80 ? 2 : 0)
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                out += Array("\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default:
                out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// A JSON array of arrays of strings, e.g. `[["a","b"],["c","d"]]`.
    public static func array(of rows: [[String]]) -> String {
        var out: [UInt8] = [UInt8(ascii: "[")]
        for (index, row) in rows.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "["))
            for (column, text) in row.enumerated() {
                if column > 0 { out.append(UInt8(ascii: ",")) }
                appendQuoted(text, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }
}
