/// Where each part of the screen goes for a terminal size.
public struct Layout: Sendable, Equatable {
    /// Below this size the screen only shows a notice.
    public static let minimum = TerminalSize(cols: 40, rows: 10)
    /// From this height on the toast gets a bordered box of five rows; below it, two plain rows.
    public static let boxedToastRows = 20

    public let size: TerminalSize
    /// Rows 0 and 1: source/destination and counts.
    public let headerRow = 0
    /// The aggregate bar.
    public let aggregateRow = 2
    /// The throughput sparkline under the aggregate bar; nil below 50x16, where the list needs the row more.
    public let graphRow: Int?
    /// First row of the toast.
    public let toastRow: Int
    public let toastHeight: Int
    /// The list's column titles.
    public let columnHeaderRow: Int
    /// First file row.
    public let listTop: Int
    /// File rows shown at once.
    public let listHeight: Int
    /// Key hints and position.
    public let footerRow: Int

    /// Lays out `size`.
    public init(size: TerminalSize) {
        self.size = size
        toastHeight = size.rows >= Self.boxedToastRows ? 5 : 2
        graphRow = size.rows >= 16 && size.cols >= 50 ? aggregateRow + 1 : nil
        toastRow = aggregateRow + (graphRow == nil ? 1 : 2)
        columnHeaderRow = toastRow + toastHeight
        listTop = columnHeaderRow + 1
        footerRow = max(0, size.rows - 1)
        let tooSmall = size.cols < Self.minimum.cols || size.rows < Self.minimum.rows
        listHeight = tooSmall ? 0 : max(0, footerRow - listTop)
    }

    /// True below 40x10: only a notice fits.
    public var isTooSmall: Bool {
        size.cols < Self.minimum.cols || size.rows < Self.minimum.rows
    }

    /// True when the toast is drawn in a box.
    public var toastBoxed: Bool { toastHeight == 5 }
}
