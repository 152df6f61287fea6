/// Builds one NDJSON line as UTF-8 bytes, keys in the order they are added.
///
/// Bytes rather than string concatenation: a 300-file `--json` run writes 1,200 lines, and building each from
/// a dozen small strings cost more CPU than the rest of the reporter.
struct JSONLine {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    init() {
        bytes.reserveCapacity(320)
    }

    mutating func add(_ key: StaticString, _ value: String?) {
        self.key(key)
        if let value { Self.appendQuoted(value, to: &bytes) } else { bytes += Self.null }
    }

    mutating func add(_ key: StaticString, _ value: Int64?) {
        self.key(key)
        if let value { bytes += String(value).utf8 } else { bytes += Self.null }
    }

    mutating func add(_ key: StaticString, _ value: Int?) {
        add(key, value.map(Int64.init))
    }

    mutating func add(_ key: StaticString, _ value: Double) {
        self.key(key)
        guard value.isFinite else {
            bytes += Self.null
            return
        }
        let rounded = (value * 1000).rounded() / 1000
        let text = rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
        bytes += text.utf8
    }

    /// Adds text that is already valid JSON.
    mutating func add(_ key: StaticString, rawJSON: String) {
        self.key(key)
        bytes += rawJSON.utf8
    }

    /// The line, without a line break.
    var text: String { String(decoding: bytes + [UInt8(ascii: "}")], as: UTF8.self) }

    private mutating func key(_ key: StaticString) {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        // Keys are the schema's own names: plain ASCII, nothing to escape.
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    private static let null = Array("null".utf8)

    /// A JSON string literal; control characters escaped so a line never breaks.
    static func quote(_ text: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 2)
        appendQuoted(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal. Escapes `"`, `\`, C0 controls, DEL, and U+2028/U+2029 (line
    /// breaks to JavaScript); every other byte is copied as it is.
    static func appendQuoted(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
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
}
