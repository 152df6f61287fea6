/// Builds one NDJSON line with keys in the order they are added.
struct JSONLine {
    private var fields: [String] = []

    mutating func add(_ key: String, _ value: String?) {
        fields.append(Self.quote(key) + ":" + (value.map(Self.quote) ?? "null"))
    }

    mutating func add(_ key: String, _ value: Int64?) {
        fields.append(Self.quote(key) + ":" + (value.map { String($0) } ?? "null"))
    }

    mutating func add(_ key: String, _ value: Int?) {
        add(key, value.map(Int64.init))
    }

    mutating func add(_ key: String, _ value: Double) {
        fields.append(Self.quote(key) + ":" + (value.isFinite ? String(format3(value)) : "null"))
    }

    /// Adds text that is already valid JSON.
    mutating func add(_ key: String, rawJSON: String) {
        fields.append(Self.quote(key) + ":" + rawJSON)
    }

    var text: String { "{" + fields.joined(separator: ",") + "}" }

    private func format3(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }

    /// A JSON string literal; control characters escaped so a line never breaks.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value) {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
