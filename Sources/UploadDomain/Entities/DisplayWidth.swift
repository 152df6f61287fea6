/// Measures text the way a terminal lays it out: CJK and emoji take two columns, combining marks none.
///
/// A table rather than libc `wcwidth`, so widths do not depend on the process locale (tests run in "C").
public enum DisplayWidth {
    /// Columns taken by one character (grapheme cluster): 0, 1 or 2, or as its `cells` take.
    public static func of(_ character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.count > 1, case let parts = cells(character), parts.count > 1 {
            return parts.reduce(0) { $0 + of($1) }
        }
        let base = of(first)
        if base == 1, scalars.count > 1, scalars.contains(where: { $0.value == 0xFE0F }),
            first.properties.isEmoji
        {
            return 2  // VS16 asks for emoji presentation: ☺️, ❤️
        }
        return base
    }

    /// The character as cells all terminals lay out alike. A cluster of several spacing scalars (a ZWJ sequence
    /// 👨‍👩‍👧, a flag 🇯🇵, a skin tone 👍🏽) becomes one character per spacing scalar, each with the marks that follow it,
    /// and its joiners are dropped: terminals differ on whether they join them, and a joiner left in a cell joined
    /// the next cell's character, shifting the rest of the row.
    public static func cells(_ character: Character) -> [Character] {
        let scalars = character.unicodeScalars
        guard scalars.count > 1, scalars.dropFirst().contains(where: { of($0) > 0 }) else { return [character] }
        var parts: [String] = []
        for scalar in scalars where scalar.value != 0x200D {
            if parts.isEmpty || of(scalar) > 0 {
                parts.append(String(scalar))
            } else {
                parts[parts.count - 1].unicodeScalars.append(scalar)
            }
        }
        return parts.flatMap { Array($0) }
    }

    /// Columns taken by one scalar on its own.
    public static func of(_ scalar: Unicode.Scalar) -> Int {
        let v = scalar.value
        if v < 0x20 || (0x7F..<0xA0).contains(v) { return 0 }
        if v < 0x300 { return 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if v == 0x200B || (0xFE00...0xFE0F).contains(v) { return 0 }
        if scalar.properties.isEmojiPresentation { return 2 }
        return isWide(v) ? 2 : 1
    }

    /// Columns taken by `text`.
    public static func of(_ text: some StringProtocol) -> Int {
        var width = 0
        for character in text { width += of(character) }
        return width
    }

    /// `text` cut to at most `width` columns, ending in `ellipsis` when something was cut.
    public static func truncate(_ text: String, to width: Int, ellipsis: String = "…") -> String {
        guard width > 0 else { return "" }
        if of(text) <= width { return text }
        let ellipsisWidth = of(ellipsis)
        guard width > ellipsisWidth else { return String(repeating: ".", count: width) }
        var out = ""
        var used = 0
        for character in text {
            let w = of(character)
            if used + w > width - ellipsisWidth { break }
            out.append(character)
            used += w
        }
        return out + ellipsis
    }

    /// `text` padded with spaces (or cut) to exactly `width` columns, aligned left or right.
    public static func pad(_ text: String, to width: Int, alignRight: Bool = false, ellipsis: String = "…") -> String {
        let cut = truncate(text, to: width, ellipsis: ellipsis)
        let gap = String(repeating: " ", count: max(0, width - of(cut)))
        return alignRight ? gap + cut : cut + gap
    }

    // East Asian Wide and Fullwidth blocks (Unicode 15 EastAsianWidth.txt, coalesced).
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
        0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F, 0x2693...0x2693, 0x26A1...0x26A1,
        0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA,
        0x26F2...0x26F3, 0x26F5...0x26F5, 0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B,
        0x2728...0x2728, 0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55, 0x2E80...0x303E,
        0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F, 0xAC00...0xD7A3,
        0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4,
        0x17000...0x18CFF, 0x1B000...0x1B2FF, 0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E,
        0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F64F, 0x1F680...0x1F6FF, 0x1F7E0...0x1F7EB,
        0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    private static func isWide(_ v: UInt32) -> Bool {
        var low = 0
        var high = wideRanges.count - 1
        while low <= high {
            let mid = (low + high) / 2
            let range = wideRanges[mid]
            if v < range.lowerBound {
                high = mid - 1
            } else if v > range.upperBound {
                low = mid + 1
            } else {
                return true
            }
        }
        return false
    }
}
