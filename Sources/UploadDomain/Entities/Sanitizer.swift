/// Makes untrusted text (file names, response bodies) safe to print on one line of a terminal.
public enum Sanitizer {
    /// Escapes control characters (C0, DEL, C1) and bidi controls (embeddings, overrides, isolates and the
    /// left-to-right, right-to-left and Arabic letter marks) as `\xNN` / `\u{NNNN}`; keeps other text.
    public static func displayName(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) {
                out += "\\x" + hex(v, width: 2)
            } else if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F
                || v == 0x061C
            {
                out += "\\u{" + hex(v, width: 4) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A one-line excerpt of a body: whitespace folded, control characters escaped, at most `limit` characters.
    public static func excerpt(_ text: String, limit: Int = 200) -> String {
        let folded = text.split(whereSeparator: { $0.isWhitespace || $0.isNewline }).joined(separator: " ")
        let safe = displayName(folded)
        return safe.count > limit ? String(safe.prefix(limit)) + "…" : safe
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
