import UploadDomain

/// Builds one NDJSON line as UTF-8 bytes, keys in the order they are added.
///
/// Bytes rather than string concatenation: a 300-file `--json` run writes 1,200 lines, and building each from
/// a dozen small strings cost more CPU than the rest of the reporter.
struct JSONLine {
    private var bytes: [UInt8] = [UInt8(ascii: "{")]

    init() {
        bytes.reserveCapacity(512)
    }

    mutating func add(_ key: StaticString, _ value: String?) {
        self.key(key)
        if let value { JSONText.appendQuoted(value, to: &bytes) } else { bytes += Self.null }
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
        JSONText.appendQuoted(text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
