/// Traps with `message` when `condition` is false, so libFuzzer saves the input as a crash.
func require(
    _ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID,
    line: UInt = #line
) {
    if !condition() { fatalError("invariant broken: \(message())", file: file, line: line) }
}

/// What may reach a terminal from untrusted text (issue 15): no C0 control (bytes below 0x20, ESC among them), no
/// DEL, no C1 control (U+0080–U+009F), and no invisible format character (Unicode's category Cf: the bidi controls
/// U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C, and the zero-width spaces, joiners, U+FEFF, tags, …) but a
/// zero-width joiner between two emoji, which shows as the emoji it makes.
enum TerminalSafety {
    /// The first scalar of `text` a terminal would act on or hide instead of showing, or nil when there is none.
    static func firstUnsafe(in text: some StringProtocol) -> Unicode.Scalar? {
        let scalars = Array(text.unicodeScalars)
        return scalars.indices.first { index in
            let scalar = scalars[index]
            return isUnsafe(scalar.value)
                || (scalar.properties.generalCategory == .format && !joinsEmoji(scalars, at: index))
        }.map { scalars[$0] }
    }

    static func isUnsafe(_ v: UInt32) -> Bool {
        v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) || (0x202A...0x202E).contains(v)
            || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F || v == 0x061C
    }

    /// A zero-width joiner with an emoji after it, and before it an emoji, a skin tone or VS16 (not a digit, `#` or
    /// `*`, which Unicode counts as emoji for their keycaps).
    private static func joinsEmoji(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        func isPictograph(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 0xA9 && scalar.properties.isEmoji }
        guard scalars[index].value == 0x200D, index > 0, index + 1 < scalars.count, isPictograph(scalars[index + 1])
        else { return false }
        let previous = scalars[index - 1]
        return isPictograph(previous) || previous.properties.isEmojiModifier || previous.value == 0xFE0F
    }

    /// Traps when `text` holds a scalar a terminal would act on; `what` names the text in the message.
    static func require(_ text: some StringProtocol, _ what: String, file: StaticString = #fileID, line: UInt = #line) {
        if let scalar = firstUnsafe(in: text) {
            let code = String(scalar.value, radix: 16, uppercase: true)
            let shown = String(text).debugDescription
            fatalError("invariant broken: \(what) holds U+\(code): \(shown)", file: file, line: line)
        }
    }
}

/// Reads an input front to back, as libFuzzer's FuzzedDataProvider does; past the end every read gives zeros.
struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    init(_ bytes: [UInt8]) { self.bytes = bytes[...] }

    /// The next byte, or 0 at the end.
    mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    /// The next `count` bytes, or fewer at the end.
    mutating func bytes(_ count: Int) -> [UInt8] {
        let taken = bytes.prefix(count)
        bytes.removeFirst(taken.count)
        return Array(taken)
    }

    /// Bytes up to (not including) the next `delimiter`, which is consumed; everything left when there is none.
    mutating func bytes(upTo delimiter: UInt8) -> [UInt8] {
        guard let end = bytes.firstIndex(of: delimiter) else { return rest() }
        let taken = Array(bytes[..<end])
        bytes = bytes[(end + 1)...]
        return taken
    }

    /// Everything not read yet.
    mutating func rest() -> [UInt8] {
        defer { bytes = [] }
        return Array(bytes)
    }
}

extension Array where Element == UInt8 {
    /// The lossy UTF-8 text of these bytes, as the transport makes a response body.
    var text: String { String(decoding: self, as: UTF8.self) }

    /// True when `needle` occurs in these bytes.
    func contains(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty else { return true }
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { self[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
