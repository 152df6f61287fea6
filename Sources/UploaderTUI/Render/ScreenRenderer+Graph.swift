import UploadDomain

extension ScreenRenderer {
    // MARK: - Throughput graph

    /// One row under the overall bar: the last minute of goodput as a sparkline, then its peak and the current
    /// second. Per-file rates stay in the list.
    func renderGraph(_ frame: inout Frame, _ history: RateHistory, row: Int) {
        let cols = frame.size.cols
        // Before a second has moved a byte there is nothing to plot: say so where the graph will be, instead of a
        // blank row ending in dashes far to the right.
        guard history.peak > 0 else {
            let note = "throughput graph " + glyphs.dash + " from the first second of sending"
            frame.put(truncate(note, cols - 2), x: 1, y: row, style: style(dim: true))
            return
        }
        let peak = "peak " + Formatting.rate(history.peak, dash: glyphs.dash)
        let now = "now " + Formatting.rate(history.current, dash: glyphs.dash)
        let minimumGraph = 10
        let candidates = [peak + "  " + now, now]
        guard let text = candidates.first(where: { cols - 3 - DisplayWidth.of($0) >= minimumGraph }) else { return }
        let width = min(RateHistory.capacity, cols - 3 - DisplayWidth.of(text))
        frame.put(sparkline(history, width: width), x: 1, y: row, style: style(.cyan))
        frame.put(text, x: width + 2, y: row, style: style(dim: true))
    }

    /// The sparkline of `history` in `width` cells, scaled to its highest cell; seconds that moved nothing
    /// (or lie before the first sample) stay blank.
    func sparkline(_ history: RateHistory, width: Int) -> String {
        let cells = history.cells(width: width)
        let top = cells.compactMap { $0 }.max() ?? 0
        let levels = glyphs.sparkLevels
        var line = ""
        for cell in cells {
            guard let value = cell, value > 0, top > 0 else {
                line.append(" ")
                continue
            }
            let level = Int((value / top * Double(levels.count)).rounded(.up)) - 1
            line.append(levels[min(levels.count - 1, max(0, level))])
        }
        return line
    }
}
