import UploadDomain

/// The characters bars, borders and marks are drawn with: Unicode, or plain ASCII when the locale is not UTF-8.
public struct Glyphs: Sendable, Hashable {
    public var barFull: Character
    /// Partial cells, from 1/8 to 7/8; empty in ASCII.
    public var barPartials: [Character]
    public var barEmpty: Character
    public var horizontal: Character
    public var vertical: Character
    public var topLeft: Character
    public var topRight: Character
    public var bottomLeft: Character
    public var bottomRight: Character
    public var check: String
    public var cross: String
    public var pointer: String
    public var ellipsis: String
    public var dash: String
    public var arrow: String
    public var dot: String
    public var spinner: [String]
    /// True when only ASCII may be drawn (file names too).
    public var asciiOnly: Bool

    /// Box drawing, eighth blocks and symbols.
    public static let unicode = Glyphs(
        barFull: "█", barPartials: ["▏", "▎", "▍", "▌", "▋", "▊", "▉"], barEmpty: "░",
        horizontal: "─", vertical: "│", topLeft: "╭", topRight: "╮", bottomLeft: "╰", bottomRight: "╯",
        check: "✔", cross: "✖", pointer: "▸", ellipsis: "…", dash: "—", arrow: "→", dot: "·",
        spinner: ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"], asciiOnly: false)

    /// Seven-bit characters only.
    public static let ascii = Glyphs(
        barFull: "#", barPartials: [], barEmpty: "-",
        horizontal: "-", vertical: "|", topLeft: "+", topRight: "+", bottomLeft: "+", bottomRight: "+",
        check: "[OK]", cross: "x", pointer: ">", ellipsis: "~", dash: "-", arrow: "->", dot: "|",
        spinner: ["-", "\\", "|", "/"], asciiOnly: true)

    /// Sparkline levels, lowest first: eighth blocks, or five ASCII steps.
    public var sparkLevels: [Character] {
        asciiOnly ? ["_", ".", "-", "=", "#"] : ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"]
    }

    /// Untrusted text made printable: control characters and bidi overrides escaped, and in ASCII
    /// mode every non-ASCII character shown as `?` (the terminal could not draw it).
    public func display(_ untrusted: String) -> String {
        let safe = Sanitizer.displayName(untrusted)
        guard asciiOnly else { return safe }
        var out = ""
        for scalar in safe.unicodeScalars {
            out.unicodeScalars.append(scalar.isASCII ? scalar : "?")
        }
        return out
    }

    /// A progress bar of exactly `width` cells for `fraction` (0...1), with sub-cell precision in Unicode.
    public func bar(_ fraction: Double, width: Int) -> (filled: String, empty: String) {
        guard width > 0 else { return ("", "") }
        let clamped = fraction.isFinite ? min(1, max(0, fraction)) : 0
        let steps = barPartials.count + 1
        let units = Int((clamped * Double(width * steps)).rounded(.down))
        let full = units / steps
        let partial = units % steps
        var filled = String(repeating: barFull, count: full)
        if full < width, partial > 0 {
            filled.append(barPartials[partial - 1])
        }
        let used = full + (full < width && partial > 0 ? 1 : 0)
        return (filled, String(repeating: barEmpty, count: width - used))
    }
}
