import UploadDomain

/// Column widths of the file list for a terminal width; 0 hides a column.
struct Columns: Equatable {
    var name: Int
    var size: Int
    var bar: Int
    var percent: Int
    var phase: Int
    var rate: Int
    var tries: Int
    /// The list's width: the terminal's, less a preview beside it.
    var width: Int

    init(cols: Int) {
        width = cols
        (size, bar, percent, phase, rate, tries) =
            switch cols {
            case 90...: (9, 16, 4, 10, 11, 3)
            case 64..<90: (9, 10, 4, 10, 11, 0)
            case 50..<64: (9, 0, 4, 10, 0, 0)
            default: (0, 0, 4, 10, 0, 0)
            }
        // marker (2), two cells of gap before every column after the name, one cell of right margin
        let shown = [size, bar, percent, phase, rate, tries].filter { $0 > 0 }
        name = max(4, cols - 2 - 1 - shown.reduce(0, +) - 2 * shown.count)
    }

    /// Where a row's bar starts, and with it a failed row's error.
    var progressX: Int { 2 + name + 2 + (size > 0 ? size + 2 : 0) }
}

extension ScreenRenderer {
    // MARK: - File list

    func renderList(
        _ frame: inout Frame, _ snapshot: UploadSnapshot, _ state: UIState, visible: VisibleRows, layout: Layout
    ) {
        let cols = ScreenRenderer.showsSidePreview(state) ? frame.size.cols - Self.sidePreviewWidth : frame.size.cols
        let columns = Columns(cols: cols)
        var titles: [(String, Int, Bool)] = [("NAME", columns.name, false)]
        if columns.size > 0 { titles.append(("SIZE", columns.size, true)) }
        if columns.bar > 0 { titles.append(("PROGRESS", columns.bar, false)) }
        titles.append(("%", columns.percent, true))
        titles.append(("PHASE", columns.phase, false))
        if columns.rate > 0 { titles.append(("RATE", columns.rate, true)) }
        if columns.tries > 0 { titles.append(("TRY", columns.tries, true)) }
        var x = 2
        for title in titles {
            frame.put(
                pad(title.0, title.1, right: title.2), x: x, y: layout.columnHeaderRow,
                style: style(bold: true, dim: true))
            x += title.1 + 2
        }
        if state.isFiltered {
            renderFilterTitle(&frame, state, count: visible.count, width: columns.name, layout: layout)
        }

        let files = snapshot.files
        guard !files.isEmpty else {
            frame.put("No files to upload", x: 2, y: layout.listTop, style: style(dim: true))
            return
        }
        guard !visible.isEmpty else {
            let none = "No files match " + glyphs.dash + " f or Esc shows more"
            frame.put(truncate(none, cols - 3), x: 2, y: layout.listTop, style: style(dim: true))
            return
        }
        let end = min(visible.count, state.scrollTop + layout.listHeight)
        guard state.scrollTop < end else { return }
        for position in state.scrollTop..<end {
            let y = layout.listTop + position - state.scrollTop
            renderRow(
                &frame, files[visible[position]], y: y, columns: columns, selected: position == state.selected,
                cap: snapshot.bandwidthLimit)
        }
        if state.scrollTop > 0 {
            frame.put(scrollMark(up: true), x: cols - 1, y: layout.listTop, style: style(dim: true))
        }
        if end < visible.count {
            frame.put(
                scrollMark(up: false), x: cols - 1, y: layout.listTop + layout.listHeight - 1, style: style(dim: true))
        }
    }

    /// `filter: failed /pet (3)` in the list's title row, after NAME when there is room, over it when not.
    private func renderFilterTitle(_ frame: inout Frame, _ state: UIState, count: Int, width: Int, layout: Layout) {
        var parts: [String] = []
        if state.filter != .all { parts.append("filter: \(state.filter.rawValue)") }
        if !state.search.isEmpty { parts.append("/" + glyphs.display(state.search)) }
        let label = parts.joined(separator: " ") + " (\(count))"
        let afterName = 6
        let x = DisplayWidth.of(label) <= width - afterName ? 2 + afterName : 2
        let room = x == 2 ? width : width - afterName
        if x == 2 { frame.fill(" ", x: 2, y: layout.columnHeaderRow, count: width) }
        frame.put(truncate(label, room), x: x, y: layout.columnHeaderRow, style: style(.cyan, bold: true))
    }

    func scrollMark(up: Bool) -> String {
        glyphs.asciiOnly ? (up ? "^" : "v") : (up ? "▲" : "▼")
    }

    /// The phase as the list names it, with its colour.
    func phaseLabel(_ file: FileSnapshot) -> (text: String, color: CellColor, dim: Bool) {
        if file.isPaused { return ("paused", .yellow, false) }
        switch file.phase {
        case .queued:
            return file.attempt > 0 && file.error != nil ? ("retrying", .yellow, false) : ("queued", .default, true)
        // The session may keep a file in willStart while its first bytes already flow.
        case .preparing: return ("preparing", .blue, false)
        case .willStart: return file.sent > 0 ? ("uploading", .cyan, false) : ("starting", .cyan, false)
        case .uploading: return ("uploading", .cyan, false)
        case .modeling: return ("processing", .magenta, false)
        case .verifying: return ("verifying", .magenta, false)
        case .done: return ("done", .green, false)
        case .failed: return ("failed", .red, false)
        case .cancelled: return ("cancelled", .yellow, true)
        case .skipped: return ("skipped", .default, true)
        }
    }

    private func renderRow(
        _ frame: inout Frame, _ file: FileSnapshot, y: Int, columns: Columns, selected: Bool, cap: Int64?
    ) {
        let (label, color, dim) = phaseLabel(file)
        var x = 0
        frame.put(selected ? glyphs.pointer + " " : "  ", x: x, y: y, style: style(.cyan, bold: true))
        x = 2
        frame.put(pad(glyphs.display(file.name), columns.name), x: x, y: y, style: style(bold: selected, dim: dim))
        if columns.size > 0 {
            frame.put(
                pad(Formatting.bytes(file.size), columns.size, right: true), x: x + columns.name + 2, y: y,
                style: style(dim: true))
        }
        x = columns.progressX
        let triesX = columns.width - 1 - columns.tries
        // A failed, retrying, cancelled or skipped row says why in the room of the bar, percentage, phase and rate: it is what
        // the user needs.
        let room = (columns.tries > 0 ? triesX - 2 : columns.width - 1) - x
        if file.phase == .queued, file.attempt > 0, let error = file.error {
            let text = glyphs.display("retrying " + glyphs.dot + " " + Sanitizer.displayName(error.summary))
            frame.put(pad(text, room), x: x, y: y, style: style(.yellow))
        } else if file.phase == .failed {
            let summary =
                file.error.map { error in
                    Sanitizer.displayName(error.summary)
                        + (error.bodyExcerpt.map { " " + glyphs.dash + " " + Sanitizer.excerpt($0, limit: 120) } ?? "")
                } ?? "no response"
            let text = glyphs.display("failed " + glyphs.dot + " " + summary)
            frame.put(pad(text, room), x: x, y: y, style: style(.red, bold: true))
        } else if file.phase == .cancelled, let cause = file.error?.cause {
            // Why a file the user did not cancel was: the batch stopped at another's failure, or its S3 upload kept.
            let text = glyphs.display("cancelled " + glyphs.dot + " " + Sanitizer.displayName(cause))
            frame.put(pad(text, room), x: x, y: y, style: style(.yellow, dim: true))
        } else if file.phase == .skipped, let reason = file.skipReason {
            let text = glyphs.display("skipped " + glyphs.dot + " " + Sanitizer.displayName(reason))
            frame.put(pad(text, room), x: x, y: y, style: style(dim: true))
        } else {
            if columns.bar > 0 {
                drawBar(&frame, x: x, y: y, width: columns.bar, fraction: file.fraction, color: color, dim: dim)
                x += columns.bar + 2
            }
            frame.put(
                pad(Formatting.percent(file.fraction), columns.percent, right: true), x: x, y: y, style: style(dim: dim)
            )
            x += columns.percent + 2
            frame.put(pad(label, columns.phase), x: x, y: y, style: style(color, bold: !dim, dim: dim))
            x += columns.phase + 2
            if columns.rate > 0 {
                // A row's rate spans its last half second, which may hold the bucket's burst and a whole read:
                // more than the cap all transfers share (4.9 MiB/s under 4.0) is noise, not what the file moves.
                let measured = cap.map { min(file.bytesPerSecond, Double($0)) } ?? file.bytesPerSecond
                let rate =
                    (file.phase == .uploading || file.phase == .willStart) && !file.isPaused
                    ? Formatting.rate(measured, dash: "") : ""
                frame.put(pad(rate, columns.rate, right: true), x: x, y: y, style: style(dim: true))
            }
        }
        if columns.tries > 0 {
            let tries = file.attempt > 0 ? "\(file.attempt)" : ""
            frame.put(pad(tries, columns.tries, right: true), x: triesX, y: y, style: style(dim: file.attempt <= 1))
        }
        if selected {
            frame.restyle(x: 0, y: y, count: columns.width) { $0.reverse = true }
        }
    }

    // MARK: - Footer

    func renderFooter(
        _ frame: inout Frame, _ snapshot: UploadSnapshot, _ state: UIState, visible: VisibleRows, layout: Layout
    ) {
        let cols = frame.size.cols
        let y = layout.footerRow
        let position = visible.isEmpty ? "" : "\(state.selected + 1)/\(visible.count)"
        if state.isSearching {
            renderSearchPrompt(&frame, state, position: position, y: y)
            return
        }
        if let notice = state.status ?? state.notice {
            let room = cols - 2 - DisplayWidth.of(position) - 2
            frame.put(truncate(glyphs.display(notice), room), x: 1, y: y, style: style(.yellow, bold: true))
            frame.put(position, x: cols - 1 - DisplayWidth.of(position), y: y, style: style(dim: true))
            return
        }
        let arrows = glyphs.asciiOnly ? "Up/Dn" : "↑↓"
        // Display order, with a priority: the hints that fit are kept by priority, shown in order.
        var hints: [(key: String, label: String, priority: Int)] = [
            (arrows, state.pane == .list ? "select" : "scroll", 5), ("Enter", "details", 3), ("r", "retry", 4),
            ("R", "retry all", 8),
            ("c", "cancel", 6), ("C", "cancel all", 9), ("p", "pause", 7), ("+/-", "parallel", 10),
            ("f", "filter", 11), ("/", "find", 12), ("y", "copy curl", 13), ("?", "help", 1), ("q", "quit", 0),
        ]
        // Beside q, which stops the run when no other screen watches: d is how to leave it going.
        if state.canDetach, !state.isReplay { hints.insert(("d", "detach", 2), at: hints.count - 1) }
        // A replayed run has ended: no key changes it.
        if state.isReplay { hints.removeAll { Self.commandKeys.contains($0.key) } }
        var budget = cols - 2 - DisplayWidth.of(position) - 2
        var kept = Set<Int>()
        for (index, hint) in hints.enumerated().sorted(by: { $0.element.priority < $1.element.priority }) {
            let width = DisplayWidth.of(hint.key) + 1 + DisplayWidth.of(hint.label) + 2
            if width <= budget {
                kept.insert(index)
                budget -= width
            }
        }
        var x = 1
        for (index, hint) in hints.enumerated() where kept.contains(index) {
            x += frame.put(hint.key, x: x, y: y, style: style(.cyan, bold: true))
            x += frame.put(" " + hint.label + "  ", x: x, y: y, style: style(dim: true))
        }
        frame.put(position, x: cols - 1 - DisplayWidth.of(position), y: y, style: style(dim: true))
    }

    /// The search prompt on the bottom line: `/query▏`, how to leave it, and the position among the matches.
    private func renderSearchPrompt(_ frame: inout Frame, _ state: UIState, position: String, y: Int) {
        let cols = frame.size.cols
        let hint = "Enter keeps  Esc clears"
        let right = DisplayWidth.of(position) + 2
        let showHint = cols - 1 - right - DisplayWidth.of(hint) - 2 >= 12
        let room = cols - 2 - right - (showHint ? DisplayWidth.of(hint) + 2 : 0) - 2
        var x = 1
        x += frame.put("/", x: x, y: y, style: style(.cyan, bold: true))
        // Keep the end of a long query in sight: that is where the typing happens.
        var query = glyphs.display(state.search)
        while DisplayWidth.of(query) > room, !query.isEmpty { query.removeFirst() }
        x += frame.put(query, x: x, y: y, style: style(bold: true))
        frame.put(" ", x: x, y: y, style: style(reverse: true))
        if showHint {
            frame.put(hint, x: cols - 1 - right - DisplayWidth.of(hint), y: y, style: style(dim: true))
        }
        frame.put(position, x: cols - 1 - DisplayWidth.of(position), y: y, style: style(dim: true))
    }
}
