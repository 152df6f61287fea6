/// How many colours a preview may use, decided from the environment as terminals advertise it.
public enum ColorDepth: Sendable, Hashable {
    /// 24-bit colour (`COLORTERM=truecolor` or `24bit`).
    case trueColor
    /// The xterm 256-colour palette.
    case palette256

    /// The depth for a terminal, or nil when no preview should be drawn: `NO_COLOR` set, no colours, or no UTF-8
    /// (the half block `▀` cannot be drawn).
    /// - Parameters:
    ///   - environment: the process's variables (`COLORTERM`, `NO_COLOR`).
    ///   - unicode: the locale is UTF-8.
    ///   - color: the terminal has colours and they are on.
    public static func of(environment: [String: String], unicode: Bool, color: Bool) -> ColorDepth? {
        guard unicode, color, (environment["NO_COLOR"] ?? "").isEmpty else { return nil }
        switch environment["COLORTERM"]?.lowercased() {
        case "truecolor", "24bit": return .trueColor
        default: return .palette256
        }
    }
}

/// A colour as the terminal is told it.
public enum TerminalColor: Sendable, Hashable {
    /// Red, green, blue.
    case rgb(RGB)
    /// An index of the xterm 256-colour palette.
    case indexed(UInt8)

    /// `rgb` as `depth` can show it.
    public static func of(_ rgb: RGB, depth: ColorDepth) -> TerminalColor {
        depth == .trueColor ? .rgb(rgb) : .indexed(Palette256.index(of: rgb))
    }
}

/// The xterm 256-colour palette: 16 system colours, a 6×6×6 cube (16–231) and 24 greys (232–255).
public enum Palette256 {
    private static let levels: [Int] = [0, 95, 135, 175, 215, 255]

    /// The palette entry nearest to `rgb` among the cube and the greys (the system 16 vary between terminals).
    public static func index(of rgb: RGB) -> UInt8 {
        let r = Int(rgb.red)
        let g = Int(rgb.green)
        let b = Int(rgb.blue)
        let (ri, gi, bi) = (nearestLevel(r), nearestLevel(g), nearestLevel(b))
        let cube = (levels[ri], levels[gi], levels[bi])
        let mean = (r + g + b) / 3
        let greyIndex = mean > 238 ? 23 : max(0, (mean - 3) / 10)
        let grey = 8 + greyIndex * 10
        let cubeDistance = distance((r, g, b), cube)
        let greyDistance = distance((r, g, b), (grey, grey, grey))
        return greyDistance < cubeDistance ? UInt8(232 + greyIndex) : UInt8(16 + 36 * ri + 6 * gi + bi)
    }

    /// The colour of palette entry `index` (16–255).
    public static func rgb(of index: UInt8) -> RGB {
        let i = Int(index)
        if i >= 232 {
            let v = UInt8(8 + (i - 232) * 10)
            return RGB(v, v, v)
        }
        let c = max(0, i - 16)
        return RGB(UInt8(levels[c / 36]), UInt8(levels[c / 6 % 6]), UInt8(levels[c % 6]))
    }

    private static func nearestLevel(_ value: Int) -> Int {
        value < 48 ? 0 : value < 115 ? 1 : (value - 35) / 40
    }

    private static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
        let (dr, dg, db) = (a.0 - b.0, a.1 - b.1, a.2 - b.2)
        return dr * dr + dg * dg + db * db
    }
}
