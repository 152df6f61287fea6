import UploadDomain

/// A foreground colour; the background always stays the terminal's own, so light and dark themes both work.
public enum CellColor: UInt8, Sendable, Hashable {
    // Raw values are the colour-pair numbers the CNcurses shim sets up.
    case `default` = 0
    case red = 1
    case green = 2
    case yellow = 3
    case blue = 4
    case magenta = 5
    case cyan = 6
}

/// How a cell is drawn.
public struct CellStyle: Sendable, Hashable {
    public var color: CellColor
    public var bold: Bool
    public var dim: Bool
    public var reverse: Bool
    public var underline: Bool
    /// A preview's cell: the half block's upper pixel as the foreground, the lower one as the background.
    public var pixels: PixelColors?

    /// Creates a style.
    public init(
        color: CellColor = .default, bold: Bool = false, dim: Bool = false, reverse: Bool = false,
        underline: Bool = false
    ) {
        self.color = color
        self.bold = bold
        self.dim = dim
        self.reverse = reverse
        self.underline = underline
    }

    /// The terminal's default look.
    public static let plain = CellStyle()
}

/// The two colours of a preview cell drawn as `▀`.
public struct PixelColors: Sendable, Hashable {
    /// The upper pixel.
    public var upper: TerminalColor
    /// The lower pixel; nil under the last row of a picture of odd height (the terminal's own background).
    public var lower: TerminalColor?

    /// Creates a pair.
    public init(upper: TerminalColor, lower: TerminalColor?) {
        self.upper = upper
        self.lower = lower
    }
}

/// One character cell of a frame.
public struct Cell: Sendable, Hashable {
    /// The character shown; a space for blanks.
    public var character: Character
    public var style: CellStyle
    /// Columns the character takes (2 for CJK and emoji); 0 for the cell covered by a wide neighbour.
    public var width: UInt8

    /// Creates a cell.
    public init(_ character: Character = " ", style: CellStyle = .plain, width: UInt8 = 1) {
        self.character = character
        self.style = style
        self.width = width
    }

    /// A blank cell.
    public static let blank = Cell()
}

/// A full screen of cells, built by the renderer and flushed by a terminal.
public struct Frame: Sendable, Equatable {
    /// The size the frame was built for.
    public let size: TerminalSize
    /// Row-major cells, `size.cols * size.rows` of them.
    public private(set) var cells: [Cell]

    /// Creates a blank frame.
    public init(size: TerminalSize) {
        self.size = size
        self.cells = Array(repeating: .blank, count: size.cols * size.rows)
    }

    /// The cell at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> Cell {
        cells[y * size.cols + x]
    }

    /// Replaces one cell as it is (no width bookkeeping); for copying whole rows between frames.
    mutating func setCell(_ cell: Cell, x: Int, y: Int) {
        cells[y * size.cols + x] = cell
    }

    /// The cells of row `y`.
    public func row(_ y: Int) -> ArraySlice<Cell> {
        cells[(y * size.cols)..<((y + 1) * size.cols)]
    }

    /// Writes `text` at (`x`, `y`) without passing column `x + maxWidth` or the right edge.
    ///
    /// Control characters become `?` (text should already be sanitised; this is the last line of
    /// defence against raw escape sequences). A wide character that would straddle the limit is
    /// replaced by a space.
    /// - Returns: the columns written.
    @discardableResult
    public mutating func put(
        _ text: some StringProtocol, x: Int, y: Int, style: CellStyle = .plain, maxWidth: Int? = nil
    )
        -> Int
    {
        guard y >= 0, y < size.rows, x >= 0, x < size.cols else { return 0 }
        let limit = min(size.cols, x + (maxWidth ?? size.cols))
        var column = x
        for var character in text.flatMap(DisplayWidth.cells) {
            if column >= limit { break }
            if character.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) }) {
                character = "?"
            }
            let width = DisplayWidth.of(character)
            if width == 0 { continue }  // a stray combining mark: it has no cell of its own
            if column + width > limit {
                cells[y * size.cols + column] = Cell(" ", style: style)
                column += 1
                continue
            }
            clearWide(at: column, y: y)
            cells[y * size.cols + column] = Cell(character, style: style, width: UInt8(width))
            if width == 2 {
                clearWide(at: column + 1, y: y)
                cells[y * size.cols + column + 1] = Cell(" ", style: style, width: 0)
            }
            column += width
        }
        return column - x
    }

    /// Fills `count` cells of row `y` from column `x` with `character`.
    public mutating func fill(_ character: Character, x: Int, y: Int, count: Int, style: CellStyle = .plain) {
        guard y >= 0, y < size.rows, count > 0 else { return }
        let start = max(0, x)
        let end = min(size.cols, x + count)
        guard start < end else { return }
        for column in start..<end {
            clearWide(at: column, y: y)
            cells[y * size.cols + column] = Cell(character, style: style)
        }
    }

    /// Changes the style of `count` cells of row `y`, keeping their characters.
    public mutating func restyle(x: Int, y: Int, count: Int, _ change: (inout CellStyle) -> Void) {
        guard y >= 0, y < size.rows else { return }
        let start = max(0, x)
        let end = min(size.cols, x + count)
        guard start < end else { return }
        for column in start..<end { change(&cells[y * size.cols + column].style) }
    }

    /// The frame as text, one line per row, trailing blanks trimmed (for snapshots and tests).
    public var text: String {
        (0..<size.rows).map { line($0) }.joined(separator: "\n")
    }

    /// Row `y` as text with trailing blanks trimmed.
    public func line(_ y: Int) -> String {
        var out = ""
        for cell in row(y) where cell.width > 0 { out.append(cell.character) }
        while out.last == " " { out.removeLast() }
        return out
    }

    // Overwriting half of a wide character must not leave the other half claiming the column.
    private mutating func clearWide(at column: Int, y: Int) {
        guard column < size.cols else { return }
        let index = y * size.cols + column
        if cells[index].width == 2, column + 1 < size.cols {
            cells[index + 1] = Cell(" ", style: cells[index + 1].style)
        } else if cells[index].width == 0, column > 0 {
            cells[index - 1] = Cell(" ", style: cells[index - 1].style)
        }
    }
}
