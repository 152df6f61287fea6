/// Makes untrusted text (file names, response bodies) safe to print on one line of a terminal.
public enum Sanitizer {
    /// Escapes control characters (C0, DEL, C1) as `\xNN`, and as `\u{NNNN}` the invisible format characters
    /// (Unicode's category Cf): bidi controls (embeddings, overrides, isolates, the left-to-right, right-to-left and
    /// Arabic letter marks), zero-width spaces and joiners, word joiners, invisible operators, the byte order mark,
    /// the soft hyphen, tags; keeps other text. A joiner inside an emoji sequence (👩‍💻) stays: it is seen as the
    /// emoji it makes.
    public static func displayName(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        var previous: Unicode.Scalar?
        var scalars = text.unicodeScalars.makeIterator()
        var next = scalars.next()
        while let scalar = next {
            next = scalars.next()
            let v = scalar.value
            if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) {
                out += "\\x" + hex(v, width: 2)
            } else if v >= 0xAD, scalar.properties.generalCategory == .format,  // U+00AD is the first of them
                !isInsideEmoji(scalar, after: previous, before: next)
            {
                out += "\\u{" + hex(v, width: 4) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
            previous = scalar
        }
        return out
    }

    /// Whether a format character is a zero-width joiner between two emoji (👩‍💻; the first may end in a skin tone
    /// or a variation selector): seen as the emoji it joins, or as both. Tag characters stay escaped even after a
    /// flag: they spell hidden ASCII as well as a region.
    private static func isInsideEmoji(
        _ scalar: Unicode.Scalar, after previous: Unicode.Scalar?, before next: Unicode.Scalar?
    ) -> Bool {
        guard scalar.value == 0x200D, let previous, let next, isPictograph(next) else { return false }
        return isPictograph(previous) || previous.properties.isEmojiModifier || previous.value == 0xFE0F
    }

    /// An emoji other than the digits, `#` and `*` (which Unicode counts as emoji for their keycaps).
    private static func isPictograph(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0xA9 && scalar.properties.isEmoji
    }

    /// Each line of a message of several made safe as `displayName` makes it; the line breaks stay.
    public static func lines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { displayName(String($0)) }
            .joined(separator: "\n")
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
