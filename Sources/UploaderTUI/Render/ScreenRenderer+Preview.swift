import UploadDomain

extension ScreenRenderer {
    // MARK: - Preview

    /// Columns the preview beside the list takes (the picture, a border and a gap), from 120 columns on.
    static let sidePreviewWidth = Thumbnail.box.cols + 4

    /// True when the list leaves room at its right for the selected file's preview.
    static func showsSidePreview(_ state: UIState) -> Bool {
        state.preview != nil && state.size.cols >= 120
    }

    /// The preview beside the list: a box from the column titles down to the footer with the picture at its top.
    func renderSidePreview(_ frame: inout Frame, _ state: UIState, layout: Layout) {
        guard let preview = state.preview else { return }
        let width = Self.sidePreviewWidth - 1
        let x = frame.size.cols - width
        let height = layout.footerRow - layout.columnHeaderRow
        guard height >= 4 else { return }
        drawBox(
            &frame, x: x, y: layout.columnHeaderRow, width: width, height: height, style: style(dim: true),
            title: "Preview")
        drawPreview(&frame, preview, x: x + 1, y: layout.columnHeaderRow + 1, cols: width - 2, rows: height - 2)
    }

    /// Draws `preview` centred across the top of a `cols`×`rows` area; returns the rows used.
    @discardableResult
    func drawPreview(_ frame: inout Frame, _ preview: Preview, x: Int, y: Int, cols: Int, rows: Int) -> Int {
        guard cols > 0, rows > 0 else { return 0 }
        let placeholder: String
        switch preview {
        case .ready(let picture) where colorDepth != nil:
            return drawPicture(&frame, picture, x: x, y: y, cols: cols, rows: rows)
        case .ready, .loading: placeholder = "loading preview" + glyphs.ellipsis
        case .unavailable: placeholder = "no preview"
        }
        let text = truncate(placeholder, cols)
        frame.put(
            text, x: x + max(0, (cols - DisplayWidth.of(text)) / 2), y: y + min(rows - 1, 2), style: style(dim: true))
        return min(rows, 3)
    }

    /// The picture as half blocks: each cell's foreground is the upper pixel, its background the lower one.
    private func drawPicture(_ frame: inout Frame, _ picture: Thumbnail, x: Int, y: Int, cols: Int, rows: Int) -> Int {
        guard let depth = colorDepth else { return 0 }
        let width = min(cols, picture.width)
        let height = min(rows, (picture.height + 1) / 2)
        let left = x + (cols - width) / 2
        for row in 0..<height {
            for column in 0..<width {
                let upper = TerminalColor.of(picture.pixel(x: column, y: row * 2), depth: depth)
                let lower =
                    row * 2 + 1 < picture.height
                    ? TerminalColor.of(picture.pixel(x: column, y: row * 2 + 1), depth: depth) : nil
                var cell = CellStyle()
                cell.pixels = PixelColors(upper: upper, lower: lower)
                frame.put("▀", x: left + column, y: y + row, style: cell)
            }
        }
        return height
    }
}
