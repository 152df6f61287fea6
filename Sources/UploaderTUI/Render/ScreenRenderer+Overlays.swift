import UploadDomain

extension ScreenRenderer {
    // MARK: - Detail pane

    /// Characters of a response the pane shows: it scrolls, so more than a screenful is worth keeping.
    static let responseLimit = 4000

    /// Label/value lines of the detail pane for `file`; values are sanitised.
    func detailLines(_ file: FileSnapshot) -> [(label: String, value: String, color: CellColor)] {
        let (phase, color, _) = phaseLabel(file)
        var lines: [(String, String, CellColor)] = [
            ("File", glyphs.display(file.name), .default),
            ("Path", glyphs.display(file.path), .default),
            ("Destination", glyphs.display(file.destination), .default),
            ("Phase", phase, color),
            ("Size", "\(Formatting.bytes(file.sent)) of \(Formatting.bytes(file.size)) (\(file.size) bytes)", .default),
            ("Attempts", "\(file.attempt)", .default),
            ("HTTP status", file.httpStatus.map { "\($0)" } ?? glyphs.dash, .default),
        ]
        if let result = file.result {
            lines.append(
                ("Response", glyphs.display(Sanitizer.excerpt(result.body, limit: Self.responseLimit)), .default))
            if let location = result.location { lines.append(("Stored at", glyphs.display(location), .default)) }
            if let verified = result.verified { lines.append(("Verified", glyphs.display(verified), .green)) }
        } else if let excerpt = file.error?.bodyExcerpt, !excerpt.isEmpty {
            lines.append(("Response", glyphs.display(Sanitizer.excerpt(excerpt, limit: Self.responseLimit)), .default))
        }
        if let error = file.error {
            lines.append(("Error", glyphs.display(error.summary), .red))
        }
        if let reason = file.skipReason {
            lines.append(("Skipped", glyphs.display(Sanitizer.displayName(reason)), .default))
        }
        return lines
    }

    /// One row of the detail pane's body, before scrolling.
    enum DetailRow {
        /// A value's row; the label on its first.
        case field(label: String?, text: String, color: CellColor)
        /// The `curl` label and how to copy the command.
        case curlTitle
        /// A row of the command, drawn from column 0 without the box's sides.
        case command(String)
        /// Room kept beside the preview.
        case blank
    }

    /// The rows of the detail pane's body for `file`, in order: every field wrapped to its width, then the command.
    /// - Parameter previewRows: rows the preview takes at the top right; the command starts below them.
    func detailRows(_ file: FileSnapshot, cols: Int, previewRows: Int, valueWidth: Int) -> [DetailRow] {
        var rows: [DetailRow] = []
        for line in detailLines(file) {
            for (index, chunk) in wrap(line.value, width: valueWidth).enumerated() {
                rows.append(.field(label: index == 0 ? line.label : nil, text: chunk, color: line.color))
            }
        }
        let command = file.curlCommand
        guard !command.isEmpty else { return rows }
        while rows.count < previewRows { rows.append(.blank) }
        rows.append(.curlTitle)
        let lines = CommandLines.split(command).map { glyphs.display($0) }
        rows += CommandLines.wrap(lines, width: cols - 1, margin: 2).map(DetailRow.command)
        return rows
    }

    /// The pane's geometry at `size`: where the body starts, how many rows it has, the value column and width, and
    /// the preview's rows (0 without one).
    private func detailGeometry(size: TerminalSize, preview: Preview?) -> (
        top: Int, height: Int, labelWidth: Int, valueX: Int, valueWidth: Int, previewRows: Int
    ) {
        let layout = Layout(size: size)
        let cols = size.cols
        let top = layout.toastRow
        let height = layout.footerRow - top
        let labelWidth = cols >= 60 ? 12 : 8
        let valueX = 2 + labelWidth + 1
        // The preview takes the top right corner from 70 columns on; the curl lines start below it.
        let box = Thumbnail.box
        let showPreview = preview != nil && preview != .unavailable && cols >= 70 && height >= 8
        let previewRows = showPreview ? min(box.rows, height - 2) : 0
        let valueWidth = max(1, cols - valueX - 2 - (showPreview ? box.cols + 2 : 0))
        return (top, height, labelWidth, valueX, valueWidth, previewRows)
    }

    /// How far the detail pane of `file` scrolls at `size`: its rows beyond those the pane shows.
    func detailScrollLimit(_ file: FileSnapshot, preview: Preview?, size: TerminalSize) -> Int {
        let geometry = detailGeometry(size: size, preview: preview)
        let rows = detailRows(
            file, cols: size.cols, previewRows: geometry.previewRows, valueWidth: geometry.valueWidth)
        return max(0, rows.count - max(1, geometry.height - 2))
    }

    /// Draws the pane with its body scrolled `scroll` rows (clamped to what there is).
    func renderDetail(
        _ frame: inout Frame, _ file: FileSnapshot, preview: Preview? = nil, scroll: Int = 0, layout: Layout
    ) {
        let cols = frame.size.cols
        let geometry = detailGeometry(size: frame.size, preview: preview)
        let (top, height, valueX) = (geometry.top, geometry.height, geometry.valueX)
        guard height >= 3 else { return }
        drawBox(&frame, x: 0, y: top, width: cols, height: height, style: style(.cyan), title: "Details")
        let rows = detailRows(
            file, cols: cols, previewRows: geometry.previewRows, valueWidth: geometry.valueWidth)
        let bodyRows = height - 2
        let scroll = min(max(0, scroll), max(0, rows.count - bodyRows))
        let more = scroll + bodyRows < rows.count
        // Said on the frame only when there is more than fits; the keys scroll while the pane is open.
        let arrows = glyphs.asciiOnly ? "Up/Dn PgUp/PgDn" : "↑↓ PgUp PgDn"
        let hint = scroll > 0 || more ? " \(arrows) scroll " + glyphs.dot + " Esc closes " : " Esc closes "
        frame.put(hint, x: max(1, cols - 2 - DisplayWidth.of(hint)), y: top + height - 1, style: style(dim: true))
        if scroll > 0 { frame.put(scrollMark(up: true), x: cols - 1, y: top + 1, style: style(dim: true)) }
        if more { frame.put(scrollMark(up: false), x: cols - 1, y: top + height - 2, style: style(dim: true)) }
        // The preview sits beside the first rows; scrolled, those rows are gone and it goes with them.
        if let preview, geometry.previewRows > 0, scroll == 0 {
            let box = Thumbnail.box
            drawPreview(&frame, preview, x: cols - 2 - box.cols, y: top + 1, cols: box.cols, rows: geometry.previewRows)
        }
        let copyHint = truncate("y copies it " + glyphs.dash + " or select the lines", geometry.valueWidth)
        for (offset, row) in rows.dropFirst(scroll).prefix(bodyRows).enumerated() {
            let y = top + 1 + offset
            switch row {
            case .field(let label, let text, let color):
                if let label {
                    frame.put(pad(label, geometry.labelWidth), x: 2, y: y, style: style(bold: true, dim: true))
                }
                frame.put(text, x: valueX, y: y, style: style(color))
            case .curlTitle:
                frame.put(pad("curl", geometry.labelWidth), x: 2, y: y, style: style(bold: true, dim: true))
                frame.put(copyHint, x: valueX, y: y, style: style(dim: true))
            case .command(let line):
                // No side borders on these rows: a mouse selection then holds only the command, and the terminal
                // drops the trailing blanks, so each line ends in its `\`. Too long a line is wrapped the way the
                // shell joins it back (a cut word goes on at column 0), never cut.
                frame.fill(" ", x: 0, y: y, count: cols)
                frame.put(line, x: 0, y: y, style: style())
            case .blank:
                break
            }
        }
    }

    /// Wraps `text` into lines of at most `width` display columns, at a space when one is near the end.
    func wrap(_ text: String, width: Int) -> [String] {
        guard width > 0 else { return [] }
        var lines: [String] = []
        var current: [Character] = []
        var used = 0
        for character in text {
            let w = DisplayWidth.of(character)
            if used + w > width {
                // Break after the last space in the second half of the line; otherwise cut hard.
                if let space = current.lastIndex(of: " "), space >= current.count / 2 {
                    lines.append(String(current[...space]))
                    current = Array(current[(space + 1)...])
                } else {
                    lines.append(String(current))
                    current = []
                }
                used = current.reduce(0) { $0 + DisplayWidth.of($1) }
            }
            current.append(character)
            used += w
        }
        if !current.isEmpty || lines.isEmpty { lines.append(String(current)) }
        return lines
    }

    // MARK: - Help

    /// The cap as the help shows it: `2.0 MiB/s`, or `none`.
    private func speedCap(_ limit: Int64?) -> String {
        limit.map { Formatting.rate(Double($0)) } ?? "none"
    }

    /// The keys that command the run, as the footer and the help name them: a replayed screen leaves them out.
    static let commandKeys: Set<String> = ["r", "R", "c", "C", "p", "+/-", "+ / -", "[ / ]"]

    /// The help's rows: each key and what it does, less those a replayed run does not take.
    func helpEntries(_ snapshot: UploadSnapshot, canDetach: Bool, replay: Bool) -> [(String, String)] {
        let arrows = glyphs.asciiOnly ? "Up Down PgUp PgDn" : "↑ ↓ PgUp PgDn"
        var entries: [(String, String)] = [
            (arrows, "select a file (Home/End: first/last)"),
            ("Enter", "details; \(arrows) scroll them"),
            ("Esc", "close a pane; on the list, show all files"),
            ("r", "retry the selected failed or cancelled file"),
            ("R", "retry every failed or cancelled file"),
            ("c", "cancel the selected file"),
            ("C", "cancel all (asks y/n)"),
            ("p", "pause or resume the selected file"),
            ("+ / -", "more / fewer parallel uploads (now \(snapshot.concurrency))"),
            ("[ / ]", "total speed cap down / up (now \(speedCap(snapshot.bandwidthLimit)))"),
            ("f", "show all / active / failed / done files"),
            ("/", "find by name (Enter keeps, Esc clears)"),
            ("y / Y", "copy the file's curl command / its error"),
            ("click / wheel", "select a file (its error: details) / move"),
            ("Shift+drag", "select text while the mouse is on"),
            ("?", "show or hide this help"),
            ("q", "quit (asks y/n while uploads run)"),
        ]
        if canDetach {
            entries.insert(("d", "detach: the run goes on without the screen"), at: entries.count - 1)
            entries[entries.count - 1] = ("q", "quit; the run stops unless others watch it")
        }
        if replay {
            entries.removeAll { Self.commandKeys.contains($0.0) }
            entries[entries.count - 1] = ("q", "quit: this run has ended, no key changes it")
        }
        return entries
    }

    /// Rows the help's box may take at `size`, borders included.
    private static func helpRoom(_ size: TerminalSize) -> Int {
        let layout = Layout(size: size)
        return layout.footerRow - layout.toastRow
    }

    /// How far the help scrolls at `size`: its rows beyond those the box shows.
    func helpScrollLimit(_ snapshot: UploadSnapshot, size: TerminalSize, canDetach: Bool, replay: Bool) -> Int {
        let entries = helpEntries(snapshot, canDetach: canDetach, replay: replay)
        return max(0, entries.count - max(1, Self.helpRoom(size) - 2))
    }

    /// Draws the help with its rows scrolled `scroll` (clamped to what there is).
    func renderHelp(
        _ frame: inout Frame, _ snapshot: UploadSnapshot, layout: Layout, canDetach: Bool = false, replay: Bool = false,
        scroll: Int = 0
    ) {
        let entries = helpEntries(snapshot, canDetach: canDetach, replay: replay)
        let cols = frame.size.cols
        let keyWidth = 18
        let width = min(cols - 2, 2 + keyWidth + 44 + 2)
        let height = min(Self.helpRoom(frame.size), entries.count + 2)
        guard width >= 20, height >= 3 else { return }
        let x = (cols - width) / 2
        let top = layout.toastRow
        drawBox(&frame, x: x, y: top, width: width, height: height, style: style(.cyan), title: "Keys")
        let compactKeys = width < keyWidth + 24
        let kw = compactKeys ? 6 : keyWidth
        let bodyRows = height - 2
        let scroll = min(max(0, scroll), max(0, entries.count - bodyRows))
        let more = scroll + bodyRows < entries.count
        // As the details do: the frame says the keys scroll only when some rows do not fit, so none seems missing.
        if scroll > 0 || more {
            let arrows = glyphs.asciiOnly ? "Up/Dn PgUp/PgDn" : "↑↓ PgUp PgDn"
            let hint = truncate(" \(arrows) scroll " + glyphs.dot + " Esc closes ", width - 4)
            frame.put(hint, x: x + width - 2 - DisplayWidth.of(hint), y: top + height - 1, style: style(dim: true))
        }
        if scroll > 0 { frame.put(scrollMark(up: true), x: x + width - 1, y: top + 1, style: style(dim: true)) }
        if more { frame.put(scrollMark(up: false), x: x + width - 1, y: top + height - 2, style: style(dim: true)) }
        for (index, entry) in entries.dropFirst(scroll).prefix(bodyRows).enumerated() {
            let y = top + 1 + index
            frame.put(pad(entry.0, kw), x: x + 2, y: y, style: style(.cyan, bold: true))
            frame.put(truncate(entry.1, width - kw - 5), x: x + 3 + kw, y: y, style: style())
        }
    }

    // MARK: - Prompts

    /// - Parameter canDetach: the run has a process of its own, so quitting can also leave it going (`d`).
    func renderPrompt(
        _ frame: inout Frame, _ prompt: UIState.Prompt, _ snapshot: UploadSnapshot, canDetach: Bool = false
    ) {
        let question: String
        var notes: [String]
        let counts = snapshot.progress.counts
        switch prompt {
        case .cancelAll:
            question = "Cancel all \(counts.pending) pending files?"
            notes = [
                "y cancels the queued ones and lets those in flight finish " + glyphs.dot + " any other key keeps them"
            ]
        case .quit:
            question = "Uploads are still running. Quit?"
            // Quitting stops the run: say what that costs, and that d is the way to leave it going.
            let queued = counts.queued + counts.preparing
            let cancels =
                queued == 0 ? "y" : "y cancels the " + (queued == 1 ? "queued file" : "\(queued) queued files") + ","
            notes = [cancels + " lets those in flight finish, then quits"]
            if canDetach {
                notes.append("d leaves the run going without this screen " + glyphs.dot + " any other key stays")
            } else {
                notes[0] += " " + glyphs.dot + " any other key stays"
            }
        }
        let cols = frame.size.cols
        let widest = ([question + " (y/n)"] + notes).map { DisplayWidth.of($0) }.max() ?? 0
        let width = min(cols, widest + 4)
        let x = (cols - width) / 2
        let y = max(0, frame.size.rows / 2 - 2)
        drawBox(&frame, x: x, y: y, width: width, height: 3 + notes.count, style: style(.yellow, bold: true))
        frame.put(truncate(question + " (y/n)", width - 4), x: x + 2, y: y + 1, style: style(.yellow, bold: true))
        for (index, note) in notes.enumerated() {
            frame.put(truncate(note, width - 4), x: x + 2, y: y + 2 + index, style: style(dim: true))
        }
    }
}
